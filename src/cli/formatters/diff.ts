/**
 * The formats of `dsh-mode diff`: `text` for a terminal, `markdown` sized for a pull-request comment (a summary
 * line, a table of the changed decisions with escalations first, and the deciding rule after the change), and
 * `json` (the report itself). Only changed rows are listed in text and Markdown; JSON has every row. Escalations
 * are the exact diff's witnesses (a call a reviewer can paste into `dsh-mode check`); the view's own rows follow
 * for narrowings and rule changes, then the witnesses of narrowed commands and paths. A row an argument pattern
 * decided names that pattern (with its file:line) as its deciding rule. Where the exact diff is not exact, its
 * limits follow as notes.
 * Pure: report in, text out.
 * @module
 */
import type { Cell, RuleRef } from '../../compile/index.js';
import { labelBuiltin } from './paths.js';
import type { ChangeKind, DiffReport, DiffRow } from '../grid-report.js';
import type { FormatOptions } from '../report.js';
import { describeRule, mdCode, mdRule, mdText, paintDecision } from './cells.js';
import { describeSandboxChange } from '../sandbox-diff.js';

const ORDER: Record<ChangeKind, number> = { escalation: 0, narrowing: 1, 'rule-changed': 2, unchanged: 3 };
const MARK: Record<ChangeKind, string> = {
  escalation: '↑',
  narrowing: '↓',
  'rule-changed': '~',
  unchanged: ' ',
};

/**
 * The changed rows, escalations first, then by mode and tool order.
 * @returns the rows to show
 */
export function changedRows(report: DiffReport): DiffRow[] {
  const view = report.rows
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => row.change !== 'unchanged' && row.change !== 'escalation')
    .sort((a, b) => ORDER[a.row.change] - ORDER[b.row.change] || a.index - b.index)
    .map(({ row }) => row);
  return [...report.escalations, ...view, ...report.narrowings];
}

/**
 * One line naming an escalation and the rule that caused it, for `--fail-on-escalation` messages.
 * @returns the line
 */
export function describeEscalation(row: DiffRow): string {
  const call = row.tool.arguments
    ? `call \`${row.tool.name}\` with ${JSON.stringify(row.tool.arguments)}`
    : `tool \`${row.tool.label}\``;
  const by = row.after.pattern
    ? `${describeRule(row.after.pattern)} of ${describeRule(row.after.rule)}`
    : describeRule(row.after.rule);
  return `mode \`${row.mode}\`, ${call}: ${row.before.decision} → ${row.after.decision} by ${by}`;
}

/**
 * The diff for a terminal.
 * @param report the diff
 * @param options `color` for ANSI colours
 * @returns the text
 */
export function formatDiffText(report: DiffReport, options: FormatOptions): string {
  const lines = [`${report.old.source} → ${report.new.source}: ${summary(report)}`];
  for (const change of report.sandbox)
    lines.push(`${change.change === 'escalation' ? '↑' : '↓'} ${describeSandboxChange(change)}`);
  const rows = changedRows(report);
  if (rows.length === 0) {
    for (const limit of report.exact.limits) lines.push(`note: not exact: ${limit.text}`);
    return lines.join('\n') + '\n';
  }
  const modeWidth = rows.reduce((w, r) => Math.max(w, r.mode.length), 0);
  const toolWidth = rows.reduce((w, r) => Math.max(w, r.tool.label.length), 0);
  lines.push('');
  for (const row of rows) {
    const change = `${paintDecision(row.before.decision, options.color)} → ${paintDecision(row.after.decision, options.color)}`;
    const pad = ' '.repeat(Math.max(0, 13 - row.before.decision.length - row.after.decision.length));
    const [now, then] = [deciding(row.after), deciding(row.before)];
    const was =
      row.change === 'unchanged' || then.selector === now.selector ? '' : ` (was ${describeRule(then)})`;
    lines.push(
      `${MARK[row.change]} ${row.mode.padEnd(modeWidth)}  ${row.tool.label.padEnd(toolWidth)}  ${change}${pad}` +
        `  ${describeRule(now)}${was}`,
    );
  }
  for (const limit of report.exact.limits) lines.push(`note: not exact: ${limit.text}`);
  return lines.join('\n') + '\n';
}

/**
 * The diff as a pull-request comment.
 * @param report the diff
 * @returns the Markdown
 */
export function formatDiffMarkdown(report: DiffReport): string {
  const title = `### dsh-mode policy diff: ${mdCode(report.old.source)} → ${mdCode(report.new.source)}`;
  const rows = changedRows(report);
  const lines = [title, '', summaryMarkdown(report)];
  for (const change of report.sandbox) {
    const badge = change.change === 'escalation' ? '**⚠️ sandbox escalation:**' : 'Sandbox narrowing:';
    lines.push('', `${badge} ${mdText(describeSandboxChange(change))}.`);
  }
  if (rows.length > 0) {
    lines.push(
      '',
      '| | mode | tool | before | after | deciding rule now | before, by |',
      '|---|---|---|---|---|---|---|',
    );
    for (const row of rows) {
      const badge =
        row.change === 'escalation' ? '⚠️ escalation' : row.change === 'narrowing' ? 'narrowing' : 'rule';
      const after = row.change === 'escalation' ? `**${row.after.decision}**` : row.after.decision;
      const tool = row.tool.source === 'probe' ? `_${mdText(row.tool.label)}_` : mdCode(row.tool.label);
      lines.push(
        `| ${badge} | ${mdCode(row.mode)} | ${tool} | ${row.before.decision} | ${after} | ` +
          `${mdRule(deciding(row.after))} | ${mdRule(deciding(row.before))} |`,
      );
    }
  }
  const added = report.new.modes.filter((m) => !report.old.modes.includes(m));
  const removed = report.old.modes.filter((m) => !report.new.modes.includes(m));
  if (added.length > 0) lines.push('', `Modes added: ${added.map(mdCode).join(', ')}.`);
  if (removed.length > 0) lines.push('', `Modes removed: ${removed.map(mdCode).join(', ')}.`);
  if (report.exact.limits.length > 0) {
    lines.push('', 'Not exact here:');
    for (const limit of report.exact.limits) lines.push(`- ${mdText(limit.text)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The report as JSON (`--format json`).
 * @param report the diff
 * @returns pretty-printed JSON with a final newline
 */
export function formatDiffJson(report: DiffReport): string {
  return JSON.stringify(report, labelBuiltin, 2) + '\n';
}

/** What decided a cell: the argument pattern when the call's arguments did, else the tool rule. */
function deciding(cell: Cell): RuleRef {
  return cell.pattern ?? cell.rule;
}

function summary(report: DiffReport): string {
  const { escalation, narrowing } = report.counts;
  const rule = report.counts['rule-changed'];
  const lifted = report.sandbox.filter((c) => c.change === 'escalation').length;
  // A lifted sandbox is an escalation of its own: the summary never reads "no change" beside one.
  const sandbox = lifted > 0 ? `; ${lifted} sandbox escalation${lifted === 1 ? '' : 's'}` : '';
  if (escalation + narrowing + rule === 0)
    return `no decision changed (${report.rows.length} mode × tool pairs, and ${report.exact.calls} classes of calls compared exactly)${sandbox}`;
  return (
    [
      `${escalation} escalation${escalation === 1 ? '' : 's'}`,
      `${narrowing} narrowing${narrowing === 1 ? '' : 's'}`,
      `${rule} rule change${rule === 1 ? '' : 's'}`,
    ].join(', ') + sandbox
  );
}

function summaryMarkdown(report: DiffReport): string {
  const escalation =
    report.counts.escalation + report.sandbox.filter((c) => c.change === 'escalation').length;
  if (escalation > 0) {
    return `**⚠️ ${summary(report)}.** An escalation moves a decision towards allow; it needs a human review.`;
  }
  return `${summary(report).replace(/^./, (c) => c.toUpperCase())}.`;
}
