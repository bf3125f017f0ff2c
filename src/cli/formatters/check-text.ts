/**
 * The human format of `check`: the decision, visibility, reason and the deciding rule with its location.
 * @module
 */
import type { CheckReport, FormatOptions } from '../report.js';

/**
 * Formats a decided check for people.
 * @param report a decided check report
 * @param options `color` to emit ANSI colours
 * @returns the text
 */
export function formatCheckText(
  report: Extract<CheckReport, { kind: 'decided' }>,
  options: FormatOptions,
): string {
  const colour = { allow: 32, ask: 33, deny: 31 }[report.decision];
  const decision = options.color ? `\u001b[${colour}m${report.decision}\u001b[0m` : report.decision;
  const { rule } = report;
  const where =
    rule.file === null
      ? 'no document decides this tool'
      : `${rule.file}:${rule.line ?? 1}:${rule.column ?? 1}`;
  return [
    `mode \`${report.mode}\`, tool \`${report.tool}\`: ${decision}`,
    `  visible  ${report.visible ? 'yes' : 'no (hidden from the model)'}`,
    `  reason   ${report.reason ?? '(none)'}`,
    `  rule     ${rule.selector} at ${where}`,
    '',
  ].join('\n');
}
