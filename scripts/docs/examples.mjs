// @ts-check
/**
 * Worked examples whose decisions are computed, not written: each example's documents are loaded, validated,
 * compiled and linted by the real compiler from `dist/`, and the page prints what `decide()` and lint answered.
 * An example that fails to load stops the generator, so the docs cannot show a policy the compiler refuses.
 * @module
 */
import { readFileSync } from 'node:fs';
import { BUILTIN_PLAN_PATH, compilePolicies, lintPolicies, loadPolicyText } from '../../dist/compile/api.js';
import { cell, code, fence, table } from './markdown.mjs';

/** How the built-in plan is named on the pages (the real path is machine-specific). */
export const BUILTIN_LABEL = 'policies/plan.yaml';

/**
 * @typedef {{ file: string; text: string }} ExampleDoc
 * @typedef {{ tool: string; hints?: Record<string, boolean>; mode?: string }} ExampleQuery
 * @typedef {{ title: string; intro: string; builtin?: boolean; mode: string; docs: ExampleDoc[];
 *   queries: ExampleQuery[] }} WorkedExample
 */

/**
 * Loads an example's documents (the built-in plan first when asked), failing loudly on any load error.
 * @param {WorkedExample} example
 */
export function loadExample(example) {
  const texts = example.docs.map((d) => ({ file: d.file, text: d.text }));
  if (example.builtin) texts.unshift({ file: BUILTIN_LABEL, text: readFileSync(BUILTIN_PLAN_PATH, 'utf8') });
  const documents = [];
  for (const { file, text } of texts) {
    const load = loadPolicyText(text, file);
    const errors = load.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0 || load.documents.length !== 1) {
      throw new Error(`docs example "${example.title}": ${file} does not load: ${JSON.stringify(errors)}`);
    }
    documents.push(...load.documents);
  }
  return documents;
}

/**
 * @param {{ selector: string; file: string | null; line: number | null; column: number | null }} rule
 * @returns {string} the rule as the page shows it
 */
export function ruleText(rule) {
  if (rule.file === null) return 'none: no document decides, so the tool is denied';
  return `${code(rule.selector)} at ${code(`${rule.file}:${rule.line}:${rule.column}`)}`;
}

/**
 * @param {Record<string, boolean> | undefined} hints
 * @returns {string}
 */
function hintsText(hints) {
  if (hints === undefined) return '(none)';
  return Object.entries(hints)
    .map(([k, v]) => code(`${k}: ${v}`))
    .join(', ');
}

/**
 * Renders one worked example: the documents, then a table of computed decisions, then what lint reports.
 * @param {WorkedExample} example
 * @returns {string}
 */
export function renderExample(example) {
  const documents = loadExample(example);
  const set = compilePolicies(documents);
  const rows = example.queries.map((q) => {
    const policy = set.get(q.mode ?? example.mode);
    if (policy === undefined) throw new Error(`docs example "${example.title}": no mode ${q.mode}`);
    const result = policy.decide(q.tool, q.hints);
    return [
      code(q.tool),
      hintsText(q.hints),
      `**${result.decision}**`,
      ruleText(result.rule),
      result.reason === undefined ? '' : cell(result.reason),
    ];
  });
  const findings = lintPolicies({ documents, diagnostics: [] }).map(
    (d) =>
      `- ${code(`${d.file}:${d.range?.start.line ?? 1}:${d.range?.start.column ?? 1}`)} ${d.severity} ` +
      `[${d.code}](lint-rules.md#${d.code}): ${d.message}`,
  );
  const shown = example.docs.map((d) => `${code(d.file)}:\n\n${fence('yaml', d.text)}`);
  const before = example.builtin
    ? `Loaded after the built-in ${code(BUILTIN_LABEL)} (see [its text](../../policies/plan.yaml)).`
    : 'Loaded without the built-in plan (`--no-builtin`).';
  return [
    `### ${example.title}`,
    example.intro,
    before,
    ...shown,
    `Decisions in mode ${code(example.mode)}, computed by \`compilePolicies(…).get(mode).decide(tool, hints)\`:`,
    table(['Tool', 'Hints', 'Decision', 'Deciding rule', 'Reason'], rows),
    findings.length > 0
      ? `\`dsh-mode lint\` reports:\n\n${findings.join('\n')}`
      : '`dsh-mode lint` reports nothing for these documents.',
  ].join('\n\n');
}
