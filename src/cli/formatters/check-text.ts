/**
 * The human format of `check`: the decision, visibility, reason and the deciding rule with its location, and for
 * a program tool's call that runs, the sandbox it runs in.
 * @module
 */
import type { RuleRef } from '../../compile/types.js';
import type { CheckReport, FormatOptions } from '../report.js';
import { paintDecision } from './cells.js';
import { shownFile } from './paths.js';

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
  const lines = [
    `mode \`${report.mode}\`, tool \`${report.tool}\`: ${decision}`,
    `  visible  ${report.visible ? 'yes' : 'no (hidden from the model)'}`,
    `  reason   ${report.reason ?? '(none)'}`,
    `  rule     ${rule.selector} at ${where(rule)}`,
  ];
  if (report.hint !== undefined) lines.push(`  hint     ${report.hint}`);
  if (report.sandbox) {
    const { kind, rule: set } = report.sandbox;
    lines.push(`  sandbox  ${kind}${set ? `, set at ${where(set)}` : ' (no document of the mode sets one)'}`);
  }
  const args = report.arguments;
  if (args) {
    lines.push(
      `  subject  ${args.subject === null ? '(none: the rule has no argument patterns)' : JSON.stringify(args.subject)}`,
    );
    if (args.pattern) lines.push(`  pattern  ${args.pattern.selector} at ${where(args.pattern)}`);
    lines.push(`  message  ${args.message}`);
    if (args.commands) {
      lines.push('  commands');
      for (const c of args.commands) {
        const by = c.pattern
          ? `${c.pattern.selector} at ${where(c.pattern)}`
          : `${c.rule.selector} at ${where(c.rule)}`;
        const note = c.note === undefined ? '' : ` (${c.note})`;
        lines.push(`    ${c.decision.padEnd(5)}  ${JSON.stringify(c.text)}  by ${by}${note}`);
      }
    }
  }
  lines.push('');
  return lines.join('\n');
}

function where(rule: RuleRef): string {
  return rule.file === null
    ? 'no document decides this tool'
    : `${shownFile(rule.file)}:${rule.line ?? 1}:${rule.column ?? 1}`;
}
