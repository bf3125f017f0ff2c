// @ts-check
/**
 * docs/reference/configuration.md: the `cordis.yml` deployment and the config of each plugin entry, from
 * schema/cordis.schema.json (the entry, the plugin names, the per-plugin config chosen by `if/then`) and
 * schema/mode-config.schema.json (the mode plugin). The repository's own cordis.yml is shown as the example,
 * after checking it with the schemas (ajv) and with the CLI's deployment parser, so the example cannot be wrong.
 * @module
 */
import Ajv from 'ajv';
import { parse, stringify } from 'yaml';
import { parseDeployment } from '../../dist/deploy/index.js';
import { cell, code, fence, generatedNotice, page, table } from './markdown.mjs';

/** @typedef {Record<string, any>} JsonSchema */
/** @typedef {{ deployment: JsonSchema; mode: JsonSchema; policy: JsonSchema; example: string }} ConfigSources */

/**
 * Resolves `#/definitions/x` in `self`, `mode-config.schema.json[#…]` and `policy.schema.json#…`.
 * @param {ConfigSources} src
 * @param {JsonSchema} self the schema the reference appears in
 * @param {string} ref
 * @returns {{ schema: JsonSchema; home: JsonSchema }}
 */
function resolveRef(src, self, ref) {
  const [file, pointer = ''] = ref.split('#');
  const home =
    file === ''
      ? self
      : file === 'mode-config.schema.json'
        ? src.mode
        : file === 'policy.schema.json'
          ? src.policy
          : undefined;
  if (home === undefined) throw new Error(`configuration: unknown schema file in $ref ${ref}`);
  let schema = home;
  for (const part of pointer.split('/').filter((p) => p.length > 0)) schema = schema?.[part];
  if (schema === undefined) throw new Error(`configuration: unresolved $ref ${ref}`);
  return { schema, home };
}

/**
 * A schema's type in words; references to the policy language link to its reference page.
 * @param {ConfigSources} src
 * @param {JsonSchema} self
 * @param {JsonSchema} s
 * @returns {string}
 */
function typeText(src, self, s) {
  if (s.$ref) {
    const { schema, home } = resolveRef(src, self, s.$ref);
    if (home === src.policy) {
      // The policy language has its own reference page: link it rather than repeat it.
      const key = s.$ref.split('/').at(-1);
      return s.$ref.includes('/properties/')
        ? `as the policy key [${code(key)}](policy-language.md#${key})`
        : `[${schema.title}](policy-language.md#${schema.title.toLowerCase()})`;
    }
    if (schema.type === 'object' && schema.title) return schema.title;
    return typeText(src, home, schema);
  }
  if (s.enum) return `one of ${s.enum.map((/** @type {unknown} */ v) => code(String(v))).join(', ')}`;
  if (s.type === 'array') return `list of ${typeText(src, self, s.items ?? {})}`;
  if (s.type === 'object' && typeof s.additionalProperties === 'object') {
    return `map of name → ${typeText(src, self, s.additionalProperties)}`;
  }
  let text = String(s.type ?? 'any');
  if (s.minimum !== undefined) text += ` ≥ ${s.minimum}`;
  if (s.minLength === 1) text = `non-empty ${text}`;
  return text;
}

/**
 * A table of an object schema's keys.
 * @param {ConfigSources} src
 * @param {JsonSchema} self
 * @param {JsonSchema} s
 */
function keysTable(src, self, s) {
  const required = new Set(s.required ?? []);
  /** @type {string[]} */
  const notes = [];
  const rows = Object.entries(s.properties ?? {}).map(([k, p]) => {
    const target = p.$ref ? resolveRef(src, self, p.$ref).schema : p;
    // An inline mode's keys mean what the policy document's keys mean.
    const policyKey = self === src.mode ? src.policy.properties[k] : undefined;
    const description =
      p.markdownDescription ??
      p.description ??
      policyKey?.description ??
      target.markdownDescription ??
      target.description ??
      '';
    const fallback = p.default ?? target.default;
    // A table cell holds one paragraph; the rest (code examples) goes below the table.
    const [first = '', ...more] = description.split(/\n\n/);
    if (more.length > 0) notes.push(`More on ${code(k)}:\n\n${more.join('\n\n')}`);
    return [
      code(k),
      typeText(src, self, p),
      required.has(k) ? 'yes' : 'no',
      fallback === undefined ? '' : code(JSON.stringify(fallback)),
      cell(first),
    ];
  });
  const closed =
    s.additionalProperties === false
      ? 'No other key is allowed.'
      : 'The schema does not restrict other keys.';
  if (rows.length === 0) return s.maxProperties === 0 ? 'It takes no keys.' : closed;
  return [table(['Key', 'Type', 'Required', 'Default', 'Description'], rows), closed, ...notes].join('\n\n');
}

/**
 * Which config schema each plugin name gets, from the entry's `allOf` of `if name … then config …`.
 * @param {JsonSchema} entry
 * @returns {Map<string, JsonSchema>}
 */
function configByPlugin(entry) {
  const map = new Map();
  for (const clause of entry.allOf ?? []) {
    const name = clause.if?.properties?.name;
    const config = clause.then?.properties?.config;
    if (!name || !config) continue;
    for (const n of name.enum ?? [name.const]) map.set(n, config);
  }
  return map;
}

/**
 * Checks the example deployment with the schemas and the CLI's parser.
 * @param {ConfigSources} src
 */
function checkExample(src) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema(src.policy, 'policy.schema.json');
  ajv.addSchema(src.mode, 'mode-config.schema.json');
  const validate = ajv.compile(src.deployment);
  if (!validate(parse(src.example)))
    throw new Error(`cordis.yml fails its schema: ${ajv.errorsText(validate.errors)}`);
  const parsed = parseDeployment(src.example, 'cordis.yml', '.');
  if (parsed.diagnostics.length > 0) {
    throw new Error(`cordis.yml is refused: ${JSON.stringify(parsed.diagnostics)}`);
  }
}

/**
 * @param {ConfigSources} src
 * @returns {string} the page
 */
export function configurationPage(src) {
  checkExample(src);
  const entry = src.deployment.definitions.pluginEntry;
  const names = src.deployment.definitions.pluginName;
  const configs = configByPlugin(entry);
  const plugins = names.enum.map((/** @type {string} */ name, /** @type {number} */ i) => {
    const aliases = [...configs]
      .filter(([n, c]) => n !== name && c === configs.get(name))
      .map(([n]) => code(n));
    const ref = configs.get(name);
    const { schema, home } = ref?.$ref
      ? resolveRef(src, src.deployment, ref.$ref)
      : { schema: ref ?? {}, home: src.deployment };
    const blocks = [
      `### ${name}`,
      names.markdownEnumDescriptions?.[i] ?? '',
      aliases.length > 0 ? `Also accepted as ${aliases.join(', ')}.` : '',
      schema.maxProperties !== 0 && schema.markdownDescription ? schema.markdownDescription : '',
      schema.maxProperties === 0
        ? 'Its `config` must be empty or absent.'
        : `Keys of its \`config\`:\n\n${keysTable(src, home, schema)}`,
    ];
    if (home === src.mode) {
      const inline = src.mode.definitions.inlineMode;
      blocks.push(
        `Each entry of ${code('modes')} is an ${inline.title}: ${inline.markdownDescription}\n\n${keysTable(src, src.mode, inline)}`,
      );
      const example = src.mode.properties.modes.examples?.[0];
      if (example)
        blocks.push(
          `For example, narrowing the built-in plan inline:\n\n${fence('yaml', stringify([{ name, config: { modes: example } }]))}`,
        );
    }
    return blocks.filter((b) => b.length > 0).join('\n\n');
  });
  return page([
    generatedNotice('schema/cordis.schema.json and schema/mode-config.schema.json'),
    '# Configuration',
    src.deployment.markdownDescription,
    'Editors validate and complete the file with `schema/cordis.schema.json` (`dsh-mode schema --out DIR` writes the schemas). `dsh-mode chat` and `dsh-mode acp` read `cordis.yml` from the current folder once you trust it (`dsh-mode trust`), or the file given with `--config FILE`.',
    '## Plugin entries',
    `Each item of the list is a ${entry.title}: ${entry.markdownDescription}`,
    keysTable(src, src.deployment, entry),
    `${code('name')} is one of: ${names.enum.map((/** @type {string} */ n) => `[${code(n)}](#${n})`).join(', ')}. ${names.markdownDescription}`,
    '## Plugins',
    ...plugins,
    '## Example',
    'The deployment in this repository (`cordis.yml`), checked against the schemas and by the deployment loader while this page was generated:',
    fence('yaml', src.example),
  ]);
}
