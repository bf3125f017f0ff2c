/**
 * What the policy commands (`lint`, `check`, `matrix`, `diff`) share about their inputs: the default `policies/`
 * folder, which diagnostics mean "could not read the input" rather than "the policy is wrong", and the outcome
 * when inputs cannot load. Commands import this, never each other.
 * @module
 */
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { isPolicyFileName } from '../compile/index.js';
import type { Diagnostic } from '../compile/types.js';
import { formatStylish } from './formatters/stylish.js';
import type { LoadFailedReport } from './grid-report.js';
import { toLintReport } from './report.js';

/** Diagnostic codes that mean "could not read the input", not "the policy is wrong": exit 2. */
export const IO_CODES: ReadonlySet<string> = new Set(['io', 'invalid-catalog']);

/**
 * The paths to load: those given, or `policies/` when it is in `cwd` and holds policy files. An implicit
 * `policies/` with none (a fresh project's empty folder) is no input, as a missing one is: the built-in plan
 * answers. A folder named on the command line is never skipped (loading it reports that it is empty).
 * @param paths the paths given
 * @param cwd the folder the command runs in
 * @returns paths as the user would have written them (relative to `cwd`)
 */
export function defaultPaths(paths: readonly string[], cwd: string): string[] {
  if (paths.length > 0) return [...paths];
  return defaultFolder(cwd) === 'policies' ? ['policies'] : [];
}

/**
 * What the implicit `policies/` of `cwd` is: `missing`; `empty` (a folder with no policy file, and no subfolder
 * holding one); else `policies` (it is loaded; a folder whose policies are all in subfolders then gets loading's
 * error, which names them).
 * @param cwd the folder the command runs in
 */
export function defaultFolder(cwd: string): 'missing' | 'empty' | 'policies' {
  const folder = resolve(cwd, 'policies');
  if (!existsSync(folder)) return 'missing';
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    // Not a folder, or unreadable: loading it reports why.
    return 'policies';
  }
  const holdsPolicies = (e: Dirent): boolean => {
    if (!e.isDirectory()) return isPolicyFileName(e.name);
    try {
      return readdirSync(join(folder, e.name), { withFileTypes: true }).some(
        (inner) => !inner.isDirectory() && isPolicyFileName(inner.name),
      );
    } catch {
      return false;
    }
  };
  return entries.some(holdsPolicies) ? 'policies' : 'empty';
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
