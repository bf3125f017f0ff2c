// @ts-check
/**
 * docs/reference/policy-language.md, from schema/policy.schema.json (every key: type, required, default,
 * description, example) and from the compiler (worked examples of resolution and composition, decided while
 * generating). Every example shown is validated by the real loader first.
 * @module
 */
import { stringify } from 'yaml';
import { loadPolicyText } from '../../dist/compile/api.js';
import { renderExample } from './examples.mjs';
import { hintsSection, limitsSection } from './policy-facts.mjs';
import { COMPOSITION_EXAMPLES, RESOLUTION_EXAMPLES } from './policy-examples.mjs';
import { cell, code, fence, generatedNotice, page, slug, table } from './markdown.mjs';

/** @typedef {Record<string, any>} JsonSchema */

/**
 * @param {JsonSchema} root the whole schema
 * @param {string} ref a local `#/definitions/x` reference
 * @returns {JsonSchema}
 */
function resolve(root, ref) {
  const name = ref.replace(/^#\/definitions\//, '');
  const def = root.definitions?.[name];
  if (def === undefined) throw new Error(`policy schema: unresolved $ref ${ref}`);
  return def;
}

/**
 * A schema's type in words, with named definitions linked to their section.
 * @param {JsonSchema} root
 * @param {JsonSchema} s
 * @returns {string}
 */
export function typeText(root, s) {
  if (s.$ref) {
    const def = resolve(root, s.$ref);
    return `[${def.title}](#${slug(def.title)})`;
  }
  if (s.enum) return `one of ${s.enum.map((/** @type {unknown} */ v) => code(String(v))).join(', ')}`;
  if (s.oneOf) return s.oneOf.map((/** @type {JsonSchema} */ o) => typeText(root, o)).join(' or ');
  // A decision or a rule object: `anyOf` names the kinds taken, and `then` is what a mapping must be.
  if (s.anyOf && s.if?.type === 'object' && s.then) {
    return s.anyOf
      .map((/** @type {JsonSchema} */ o) => typeText(root, o.type === 'object' ? s.then : o))
      .join(' or ');
  }
  if (s.type === 'array') return `list of ${typeText(root, s.items ?? {})}`;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') {
    return `map of name → ${typeText(root, s.additionalProperties)}`;
  }
  if (s.type === 'object' && s.title) return `[${s.title}](#${slug(s.title)})`;
  let text = s.type === 'string' && s.minLength === 1 ? 'non-empty string' : String(s.type ?? 'any');
  if (s.pattern) text += ` matching ${code(s.pattern)}`;
  if (s.not?.const !== undefined) text += `, not ${code(String(s.not.const))}`;
  return text;
}

/**
 * An example value for a key: its own `examples`, its definition's, the schema's top-level example, or the
 * opposite of a boolean default.
 * @param {JsonSchema} root
 * @param {string} key
 * @param {JsonSchema} s
 * @returns {unknown}
 */
function exampleOf(root, key, s) {
  if (s.examples?.length) return s.examples[0];
  if (s.$ref) {
    const def = resolve(root, s.$ref);
    if (def.examples?.length) return def.examples[0];
  }
  const top = root.examples?.find((/** @type {JsonSchema} */ e) => key in e);
  if (top) return top[key];
  if (s.type === 'boolean') return !(s.default ?? false);
  throw new Error(`policy schema: no example for \`${key}\`; add \`examples\` to the schema`);
}

/**
 * One document key: a section with its type, requiredness, default, description and a validated example.
 * @param {JsonSchema} root
 * @param {string} key
 * @param {JsonSchema} s
 * @param {boolean} required
 */
function keySection(root, key, s, required) {
  const value = exampleOf(root, key, s);
  const doc =
    key === 'mode'
      ? { mode: value }
      : key === '$schema'
        ? { $schema: value, mode: 'review' }
        : { mode: 'review', [key]: value };
  const yaml = stringify(doc, { lineWidth: 0 });
  const load = loadPolicyText(yaml, 'example.yaml');
  if (load.documents.length !== 1) {
    throw new Error(
      `policy schema: the example of \`${key}\` does not load: ${JSON.stringify(load.diagnostics)}`,
    );
  }
  const facts = [
    `- Type: ${typeText(root, s)}`,
    `- Required: ${required ? 'yes' : 'no'}`,
    `- Default: ${s.default !== undefined ? code(JSON.stringify(s.default)) : key === 'default' ? 'none (the document abstains)' : 'none'}`,
  ];
  return [
    `### ${key}`,
    s.markdownDescription ?? s.description,
    facts.join('\n'),
    `Example:\n\n${fence('yaml', yaml)}`,
  ].join('\n\n');
}

/**
 * A definition: its description, and a table of its keys when it is an object with properties.
 * @param {JsonSchema} root
 * @param {JsonSchema} def
 */
function definitionSection(root, def) {
  // A definition that properties reference carries its text in `$comment`: the JSON language server would show a
  // definition's description in place of the referencing property's own.
  const parts = [`### ${def.title}`, def.markdownDescription ?? def.description ?? def.$comment];
  if (def.properties) {
    const required = new Set(def.required ?? []);
    const rows = Object.entries(def.properties).map(([k, p]) => [
      code(k),
      typeText(root, p),
      required.has(k) ? 'yes' : 'no',
      cell(p.markdownDescription ?? p.description ?? ''),
    ]);
    parts.push(table(['Key', 'Type', 'Required', 'Description'], rows));
    if (def.additionalProperties === false) parts.push('No other key is allowed.');
  } else {
    parts.push(`Type: ${typeText(root, { ...def, title: undefined })}.`);
  }
  if (def.examples?.length)
    parts.push(`Example:\n\n${fence('yaml', stringify(def.examples[0], { lineWidth: 0 }))}`);
  return parts.join('\n\n');
}

/**
 * @param {JsonSchema} schema the parsed policy schema
 * @returns {string} the page
 */
export function policyLanguagePage(schema) {
  const required = new Set(schema.required ?? []);
  const keys = Object.entries(schema.properties);
  const summary = table(
    ['Key', 'Type', 'Required', 'Description'],
    keys.map(([k, s]) => [
      `[${code(k)}](#${slug(k)})`,
      typeText(schema, s),
      required.has(k) ? 'yes' : 'no',
      cell(s.description ?? ''),
    ]),
  );
  const full = schema.examples?.[0];
  return page([
    generatedNotice('schema/policy.schema.json and the compiler in dist/compile'),
    '# Policy language reference',
    schema.markdownDescription,
    'A policy document is YAML or JSON. Editors validate and complete it through the schema: start a YAML file with `# yaml-language-server: $schema=<path>/schema/policy.schema.json`. Unknown keys are errors with a did-you-mean, so a typo never silently widens a mode.',
    full && `A complete document:\n\n${fence('yaml', stringify(full, { lineWidth: 0 }))}`,
    '## Document keys',
    summary,
    schema.additionalProperties === false && 'No other key is allowed.',
    ...keys.map(([k, s]) => keySection(schema, k, s, required.has(k))),
    '## Types',
    ...Object.values(schema.definitions).map((def) => definitionSection(schema, def)),
    hintsSection(),
    '## Resolution: how one document decides a tool',
    [
      'For a tool name (and the hints the tool declares), one document decides by the first of these that applies. Key order in the file never matters.',
      '',
      '1. **Exact name**: a `tools` key with no glob characters equal to the name.',
      '2. **Most specific glob**: among the `tools` globs that match, the one with the most literal characters (`*`, `**`, `?` and `[...]` count 0; braces `{a,b}` expand into separate selectors, each with its own count). Equal-specificity globs that disagree resolve to the most restrictive decision (deny > ask > allow) and are a lint error; among agreeing ones the first in document order is reported.',
      '3. **`effects`**: the most restrictive decision among the `effects` keys whose hint is true for the tool (MCP defaults: `readOnly` false, `destructive` true unless read-only, `idempotent` false, `openWorld` true).',
      '4. **`default`**: when present. Without it the document **abstains** on this tool.',
      '',
      'Globs are minimatch over plain tool names: `*` also matches `/` and `.`, and matching is case-sensitive.',
    ].join('\n'),
    ...RESOLUTION_EXAMPLES.map(renderExample),
    '## Composition: several documents for one mode',
    [
      'The built-in `policies/plan.yaml` loads first, then the paths given (a folder contributes its `*.yaml`, `*.yml` and `*.json` files, sorted by name, not recursively), then inline `modes` of the configuration. Documents naming the same mode compose as a **ceiling**:',
      '',
      '- Each document resolves the tool on its own (or abstains), and the **most restrictive** decision wins; when documents tie, the first in load order is reported as the rule.',
      '- A tool no document of the mode decides is **denied** (the rule is `default` with no file).',
      '- Sections join in load order.',
      '- Only `override: true` replaces what came before it for that mode (rules, section, description), and lint reports it.',
      '',
      'So a user or operator document can narrow plan, never silently widen it.',
    ].join('\n'),
    ...COMPOSITION_EXAMPLES.map(renderExample),
    '## Inline tests',
    'Each entry of `tests` is checked by `dsh-mode lint` against the mode as composed up to and including its document, in load order; a failing one is the [`failing-test`](lint-rules.md#failing-test) finding. `dsh-mode check MODE TOOL` prints the same decision and rule as the tables above.',
    limitsSection(),
  ]);
}
