/**
 * `dsh-mode lint --format github`: one GitHub Actions workflow command per diagnostic, so a CI run annotates the
 * policy files of a pull request inline:
 *
 *     ::error file=policies/review.yaml,line=4,col=3,endLine=4,endColumn=8,title=unknown-key::unknown key `tool`…
 *
 * Severity maps to the command: error → `error`, warning → `warning`, info → `notice`. The title is the rule id.
 * Infos are one summary notice unless `annotateInfos` (GitHub shows ten notices per step, see `infoSummary`).
 * The message carries the diagnostic's help on a second line. Escaping follows the Actions toolkit
 * (`@actions/core` `command.ts`): in the message `%`, CR and LF become `%25`, `%0D`, `%0A`; in property values
 * also `:` and `,` become `%3A` and `%2C`. GitHub's annotation columns are inclusive, ours end exclusive, so the
 * end column is one less (never before the start). Pure: `(report, options) => string`.
 * @module
 */
import { visible } from '../../apps/visible.js';
import type { Diagnostic, Severity } from '../../compile/types.js';
import type { FormatContext } from '../report.js';
import { displayPath } from './paths.js';

/** What this formatter reads from a lint report. */
export interface DiagnosticsReport {
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * What {@link formatGithub} reads from the format context: the folder paths are made relative to, and whether
 * info findings are annotated one by one (`lint --annotate-infos`).
 */
export type GithubFormatOptions = Pick<FormatContext, 'cwd'> & { annotateInfos?: boolean };

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/**
 * Escapes a workflow command's message (the data after `::`).
 * @param text any text
 * @returns the text with `%`, CR and LF escaped
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Escapes a workflow command's property value (`file=…`, `title=…`).
 * @param text any text
 * @returns the text with `%`, CR, LF, `:` and `,` escaped
 */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Renders diagnostics as GitHub workflow commands, one per line.
 * @param report the lint report (its `diagnostics`)
 * @param options the folder paths are relative to
 * @returns the commands, each ending in a newline; empty when there is nothing to report
 */
export function formatGithub(report: DiagnosticsReport, options: GithubFormatOptions): string {
  const shown = options.annotateInfos
    ? report.diagnostics
    : report.diagnostics.filter((d) => d.severity !== 'info');
  const lines = shown.map((d) => githubCommand(d, options.cwd) + '\n');
  const infos = report.diagnostics.length - shown.length;
  if (infos > 0) lines.push(infoSummary(report.diagnostics.filter((d) => d.severity === 'info')) + '\n');
  return lines.join('');
}

/**
 * GitHub shows ten notices per step: a run with a catalog can report a hundred infos, which would push the
 * errors' annotations out. So infos are one summary notice, counted by code, unless `--annotate-infos` asks.
 */
function infoSummary(infos: readonly Diagnostic[]): string {
  const byCode = new Map<string, number>();
  for (const d of infos) byCode.set(d.code, (byCode.get(d.code) ?? 0) + 1);
  const counts = [...byCode].map(([code, n]) => `${n} ${code}`).join(', ');
  const text =
    `${infos.length} info ${infos.length === 1 ? 'finding is' : 'findings are'} not annotated (${counts}): ` +
    'run `dsh-mode lint` to list them, or add `--annotate-infos`';
  return `::notice title=${escapeProperty('dsh-mode lint')}::${escapeData(text)}`;
}

/**
 * One diagnostic as one workflow command.
 * @param d the diagnostic
 * @param cwd the folder paths are relative to
 * @returns the command, without a newline
 */
export function githubCommand(d: Diagnostic, cwd: string): string {
  const props: string[] = [];
  if (d.file !== null) props.push(`file=${escapeProperty(displayPath(d.file, cwd))}`);
  if (d.file !== null && d.range) {
    const { start, end } = d.range;
    const endColumn = end.line === start.line ? Math.max(start.column, end.column - 1) : end.column;
    props.push(`line=${start.line}`, `col=${start.column}`, `endLine=${end.line}`, `endColumn=${endColumn}`);
  } else if (d.file !== null) {
    props.push('line=1');
  }
  props.push(`title=${escapeProperty(d.code)}`);
  // A policy key or value quoted in a message keeps its control characters spelled out (`\x1b`), not raw.
  const message = visible(d.help ? `${d.message}\n${d.help}` : d.message);
  return `::${COMMAND[d.severity]} ${props.join(',')}::${escapeData(message)}`;
}
