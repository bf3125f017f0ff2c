/**
 * The formats of `dsh-mode matrix`: `text` (an aligned grid, tools down and modes across, decisions coloured
 * when `color` is set), `markdown` (the same grid as a table, with a legend of the deciding rules per mode) and
 * `json` (the report itself). Pure: report in, text out.
 * @module
 */
import { labelBuiltin } from './paths.js';
import type { MatrixReport } from '../grid-report.js';
import type { FormatOptions } from '../report.js';
import { mdCode, mdRule, mdText, paintDecision } from './cells.js';

/**
 * The grid for a terminal.
 * @param report the matrix
 * @param options `color` for ANSI colours
 * @returns the text
 */
export function formatMatrixText(report: MatrixReport, options: FormatOptions): string {
  if (report.modes.length === 0) return 'no modes are defined\n';
  const labelWidth = report.tools.reduce((w, t) => Math.max(w, t.label.length), 4);
  const widths = report.modes.map((m) => Math.max(m.name.length, 5));
  const header = ['tool'.padEnd(labelWidth), ...report.modes.map((m, i) => m.name.padEnd(widths[i]!))].join(
    '  ',
  );
  const lines = [header.trimEnd()];
  report.tools.forEach((tool, t) => {
    const cells = report.modes.map((_, m) =>
      paintDecision(report.cells[m]![t]!.decision, options.color, widths[m]!),
    );
    lines.push([tool.label.padEnd(labelWidth), ...cells].join('  ').trimEnd());
  });
  lines.push(
    '',
    sandboxLine(report, (text) => text),
    footnote(report),
  );
  return lines.join('\n') + '\n';
}

/**
 * The grid as a Markdown table.
 * @param report the matrix
 * @returns the Markdown
 */
export function formatMatrixMarkdown(report: MatrixReport): string {
  if (report.modes.length === 0) return '_No modes are defined._\n';
  const lines = [
    `| tool | ${report.modes.map((m) => mdCode(m.name)).join(' | ')} |`,
    `|---|${report.modes.map(() => '---').join('|')}|`,
  ];
  report.tools.forEach((tool, t) => {
    const cells = report.modes.map((_, m) => {
      const cell = report.cells[m]![t]!;
      return cell.decision === 'deny' ? 'deny' : `**${cell.decision}**`;
    });
    const label = tool.source === 'probe' ? `_${mdText(tool.label)}_` : mdCode(tool.label);
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  });
  lines.push('', `<details><summary>Deciding rules</summary>`, '');
  report.modes.forEach((mode, m) => {
    lines.push(`**${mdCode(mode.name)}**${mode.description ? ` — ${mdText(mode.description)}` : ''}`, '');
    report.tools.forEach((tool, t) => {
      const cell = report.cells[m]![t]!;
      lines.push(`- ${mdCode(tool.label)}: ${cell.decision} — ${mdRule(cell.pattern ?? cell.rule)}`);
    });
    lines.push('');
  });
  lines.push('</details>', '', sandboxLine(report, mdCode), '', `_${footnote(report)}_`);
  return lines.join('\n') + '\n';
}

/**
 * The report as JSON (`--format json`).
 * @param report the matrix
 * @returns pretty-printed JSON with a final newline
 */
export function formatMatrixJson(report: MatrixReport): string {
  return JSON.stringify(report, labelBuiltin, 2) + '\n';
}

/** Where each mode runs `bash`: in the read-only sandbox, or unsandboxed (`none`). */
function sandboxLine(report: MatrixReport, code: (text: string) => string): string {
  const modes = report.modes.map((m) => `${code(m.name)} ${m.sandbox.kind}`);
  return `sandbox for bash: ${modes.join(', ')}`;
}

function footnote(report: MatrixReport): string {
  const tools = report.toolSet === 'catalog' ? 'the catalog' : "the reference host's built-in tools";
  const calls = report.tools.some((t) => t.source === 'argument')
    ? '; `tool argument="…"` rows show a call whose command or path changes a decision'
    : '';
  return (
    `tools: ${tools}, every name a rule mentions, a sample name per glob, and two probes for unnamed tools; ` +
    '[hints] rows show a hint combination (the hints that are true) where it changes a decision' +
    calls
  );
}
