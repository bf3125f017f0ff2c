/**
 * What the policy commands (`lint`, `check`, `matrix`, `diff`) share about their inputs: the default `policies/`
 * folder, which diagnostics mean "could not read the input" rather than "the policy is wrong", and the outcome
 * when inputs cannot load. Commands import this, never each other.
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../compile/types.js';
import { formatStylish } from './formatters/stylish.js';
import type { LoadFailedReport } from './grid-report.js';
import { toLintReport } from './report.js';

/** Diagnostic codes that mean "could not read the input", not "the policy is wrong": exit 2. */
export const IO_CODES: ReadonlySet<string> = new Set(['io', 'invalid-catalog']);

/**
 * The paths to load: those given, or `policies/` when it exists in `cwd`.
 * @param paths the paths given
 * @param cwd the folder the command runs in
 * @returns paths as the user would have written them (relative to `cwd`)
 */
export function defaultPaths(paths: readonly string[], cwd: string): string[] {
  if (paths.length > 0) return [...paths];
  return existsSync(resolve(cwd, 'policies')) ? ['policies'] : [];
}

/**
 * The report for inputs that cannot load; `io` when one of them could not be read at all.
 * @param diagnostics the errors
 * @returns the report
 */
export function loadFailed(diagnostics: Diagnostic[]): LoadFailedReport {
  return { kind: 'load-failed', diagnostics, io: diagnostics.some((d) => IO_CODES.has(d.code)) };
}

/**
 * The outcome for inputs that cannot load: their diagnostics on stderr, exit 2 for unreadable inputs, else 1.
 * @param report the failure
 * @param consequence what is not done, for the last line
 * @returns the outcome
 */
export function loadFailedOutcome(
  report: LoadFailedReport,
  consequence: string,
): { kind: 'io' | 'load-failed'; stderr: string } {
  const side = report.side ? ` (${report.side.toUpperCase()})` : '';
  return {
    kind: report.io ? 'io' : 'load-failed',
    stderr:
      `${formatStylish(toLintReport(report.diagnostics, []), { color: false })}\n` +
      `error: policies${side} cannot load, so ${consequence}\n`,
  };
}
