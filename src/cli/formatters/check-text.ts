/**
 * The human format of `check`: the decision, visibility, reason and the deciding rule with its location.
 * @module
 */
import type { CheckReport, FormatOptions } from '../report.js';
import { paintDecision } from './cells.js';

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
  const decision = paintDecision(report.decision, options.color);
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
