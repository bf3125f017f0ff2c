/**
 * The human format of `lint` (ESLint's `stylish`): findings grouped by file, one line each with
 * `line:column  severity  message  rule`, the help indented below, and a summary line. Colours only when asked
 * (`main.ts` decides, see `../colour.ts`). Control characters of a message (a policy key or value quoted in it)
 * are spelled out (`\x1b`, see `src/apps/visible.ts`). Pure: a report in, text out.
 * @module
 */
import type { Diagnostic, Severity } from '../../compile/types.js';
import { paint as paintIf, type Style } from '../../apps/colour.js';
import type { FormatOptions, LintReport } from '../report.js';
import { visible } from '../../apps/visible.js';
import { shownFile } from './paths.js';

const SEVERITY_STYLE: Record<Severity, Style> = { error: 'red', warning: 'yellow', info: 'cyan' };

/**
 * Formats a lint report for people.
 * @param report the report
 * @param options `color` to emit ANSI colours
 * @returns the text (empty when there is nothing to report)
 */
export function formatStylish(report: LintReport, options: FormatOptions): string {
  const paint = (style: Style, text: string) => paintIf(style, text, options.color);
  if (report.diagnostics.length === 0) return '';
  const groups = new Map<string, Diagnostic[]>();
  for (const d of report.diagnostics) {
    // Keys, values and file names come from the policy's author: their control characters are spelled out, never
    // sent to the terminal.
    const key = d.file === null ? '<inline>' : visible(shownFile(d.file), 'line');
    const list = groups.get(key) ?? [];
    list.push(d);
    groups.set(key, list);
  }
  const lines: string[] = [];
  for (const [file, list] of groups) {
    lines.push('', paint('underline', file));
    const rows = list.map((d) => {
      const at = d.range ? `${d.range.start.line}:${d.range.start.column}` : '1:1';
      return { d, at };
    });
    const atWidth = rows.reduce((w, r) => Math.max(w, r.at.length), 0);
    for (const { d, at } of rows) {
      const severity = paint(SEVERITY_STYLE[d.severity], d.severity.padEnd(7));
      lines.push(
        `  ${paint('dim', at.padEnd(atWidth))}  ${severity}  ${visible(d.message, 'line')}  ${paint('dim', d.code)}`,
      );
      if (d.help) lines.push(`  ${' '.repeat(atWidth)}  ${paint('dim', `help: ${visible(d.help, 'line')}`)}`);
    }
  }
  const { errorCount: e, warningCount: w, infoCount: i } = report;
  const total = e + w + i;
  const summary = `${e > 0 ? '✖' : '!'} ${plural(total, 'problem')} (${plural(e, 'error')}, ${plural(w, 'warning')}, ${i} info)`;
  lines.push('', paint(e > 0 ? 'red' : w > 0 ? 'yellow' : 'cyan', paint('bold', summary)), '');
  return lines.join('\n');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
