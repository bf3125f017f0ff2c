// @ts-check
/**
 * docs/reference/lint-rules.md: one section per code `dsh-mode lint` can report, from the same metadata SARIF
 * publishes (`listRuleMetadata()`; lint rules describe themselves in `meta`). The anchor of each section is the
 * code itself, so `lint-rules.md#<code>` links work (SARIF `helpUri`, messages, other pages).
 *
 * A rule's failing and passing examples come from its `meta.docs`; both are linted while generating, and the
 * findings shown are the real ones. A failing example that reports nothing, or a passing one that reports
 * something, stops the generator (the same check as test/compile/lint/rules/index.test.ts).
 * @module
 */
import { lintPolicies, loadPolicyText } from '../../dist/compile/api.js';
import { rules } from '../../dist/compile/lint/rules/index.js';
import { listRuleMetadata } from '../../dist/cli/formatters/sarif-rules.js';
import { formatStylish } from '../../dist/cli/formatters/stylish.js';
import { toLintReport } from '../../dist/cli/report.js';
import { code, fence, generatedNotice, page, slug } from './markdown.mjs';

/** The file name the examples are shown under. */
const EXAMPLE_FILE = 'policy.yaml';
/** The file name of the document a rule's examples are loaded after (`meta.docs.before`), when it has one. */
const BEFORE_FILE = 'base.yaml';
/** The `--tools` catalog catalog-only rules are shown with (the one the rule meta-test uses). */
const DOCS_CATALOG = [{ name: 'read' }, { name: 'write' }];

/**
 * Lints one example with one rule, without the built-in plan.
 * @param {import('../../dist/compile/lint/rules/define.js').RuleDefinition} rule
 * @param {string} text
 * @param {boolean} withCatalog
 */
function lintExample(rule, text, withCatalog) {
  const before = rule.meta.docs.before;
  const loads = [
    ...(before === undefined ? [] : [loadPolicyText(before, BEFORE_FILE)]),
    loadPolicyText(text, EXAMPLE_FILE),
  ];
  for (const load of loads) {
    if (load.documents.length !== 1) {
      throw new Error(`rule ${rule.id}: docs example does not load: ${JSON.stringify(load.diagnostics)}`);
    }
  }
  return lintPolicies(
    { documents: loads.flatMap((l) => l.documents), diagnostics: [] },
    { rules: [rule], ...(withCatalog ? { catalog: DOCS_CATALOG } : {}) },
  );
}

/**
 * The section of one lint rule.
 * @param {import('../../dist/compile/lint/rules/define.js').RuleDefinition} rule
 */
function ruleSection(rule) {
  const { docs } = rule.meta;
  let withCatalog = false;
  let found = lintExample(rule, docs.failing, false);
  if (found.length === 0) {
    withCatalog = true;
    found = lintExample(rule, docs.failing, true);
  }
  if (found.length === 0) throw new Error(`rule ${rule.id}: its failing example reports nothing`);
  const passing = lintExample(rule, docs.passing, withCatalog);
  if (passing.length > 0)
    throw new Error(`rule ${rule.id}: its passing example reports ${passing[0]?.message}`);
  const files = docs.before === undefined ? EXAMPLE_FILE : `${BEFORE_FILE} ${EXAMPLE_FILE}`;
  const command = withCatalog
    ? `dsh-mode lint --no-builtin --tools tools.json ${files}`
    : `dsh-mode lint --no-builtin ${files}`;
  const messages = Object.entries(rule.meta.messages).map(
    ([id, m]) => `- ${code(id)}: ${m.text}${m.help ? ` (help: ${m.help})` : ''}`,
  );
  return [
    `### ${rule.id}`,
    `${capitalize(rule.meta.description)}.`,
    [
      `- Severity: **${rule.meta.severity}**`,
      '- Blocks loading: no (lint reports it; the policy still compiles)',
    ].join('\n'),
    `Messages (by message id; \`{{slots}}\` are filled in):\n\n${messages.join('\n')}`,
    docs.before === undefined
      ? ''
      : `The examples are loaded after ${code(BEFORE_FILE)}, an earlier document of the same mode:\n\n${fence('yaml', docs.before)}`,
    `**Failing example** (${code(EXAMPLE_FILE)}):\n\n${fence('yaml', docs.failing)}`,
    withCatalog
      ? `This rule needs a tool catalog; here \`tools.json\` is ${code(JSON.stringify(DOCS_CATALOG))}.`
      : '',
    `${code(command)} reports this finding (\`stylish\` format, other rules’ findings left out):\n\n${fence(
      'text',
      formatStylish(toLintReport(found, files.split(' ')), { color: false })
        .replace(/^\n+/, '')
        .trimEnd(),
    )}`,
    `**Passing example**, which this rule does not report:\n\n${fence('yaml', docs.passing)}`,
    `**How to fix:** ${docs.fix}`,
  ]
    .filter((b) => b.length > 0)
    .join('\n\n');
}

/**
 * @param {import('../../dist/cli/formatters/sarif-rules.js').RuleMetadata} m
 */
function loadCodeSection(m) {
  return [
    `### ${m.id}`,
    `${capitalize(m.description)}.`,
    [
      `- Severity: **${m.severity}**`,
      `- Blocks loading: ${m.blocksLoading ? 'yes (the file contributes no document; the plugin does not start)' : 'no'}`,
    ].join('\n'),
    `**How to fix:** ${m.fix}`,
  ].join('\n\n');
}

/** @param {string} s */
function capitalize(s) {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1);
}

/**
 * @returns {string} the page
 */
export function lintRulesPage() {
  const metadata = listRuleMetadata();
  const lint = metadata.filter((m) => Object.hasOwn(rules, m.id));
  const load = metadata.filter((m) => !Object.hasOwn(rules, m.id));
  const headings = ['Lint rules', 'Load errors', ...metadata.map((m) => m.id)].map(slug);
  const dup = headings.find((h, i) => headings.indexOf(h) !== i);
  if (dup !== undefined) throw new Error(`lint-rules.md: two sections have the anchor #${dup}`);
  for (const m of metadata) {
    if (slug(m.id) !== m.id) throw new Error(`lint-rules.md: code ${m.id} is not its own anchor`);
  }
  const index = metadata.map((m) => `- [${m.id}](#${m.id}) (${m.severity}): ${m.description}`);
  return page([
    generatedNotice('the rule metadata in src/compile/lint/rules/ and src/cli/formatters/sarif-rules.ts'),
    '# Lint rules',
    'Every code `dsh-mode lint` can report, with its severity. Each section’s anchor is the code (`lint-rules.md#conflicting-globs`), so tools and messages can link it; SARIF output carries the same descriptions. Load errors refuse the file (the policy does not load, the plugin does not start). Lint rules never block compiling: the compiled policy follows the language’s rules, and lint tells you where it probably does not say what you meant.',
    'Errors fail `dsh-mode lint` (exit 1); warnings fail it only above `--max-warnings`; info findings never fail it. Rules that need `--tools CATALOG` run only when a catalog is given.',
    index.join('\n'),
    '## Lint rules',
    ...lint.map((m) => ruleSection(/** @type {any} */ (rules)[m.id])),
    '## Load errors',
    'Reported while loading, before any rule runs. Positions are `file:line:column`, 1-based.',
    ...load.map(loadCodeSection),
  ]);
}
