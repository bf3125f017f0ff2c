/**
 * The deployment's own diagnostic codes (beside the loading codes of src/compile), and how diagnostics read in
 * one-line messages (`file:line:column: message`).
 * @module
 */
import type { Diagnostic, JsonPath, LoadCode, Range } from '../compile/index.js';

/** Every code a deployment reports besides the lint rules'. Closed. */
export type DeployCode =
  | LoadCode
  /** Two entries with one id. */
  | 'duplicate-id'
  /** A deployment without a host or a model, with two models, or with a plugin twice (`complete.ts`). */
  | 'incomplete-deployment'
  /** A plugin or model that failed while starting. */
  | 'start-failed';

/** A deployment diagnostic. */
export interface DeployDiagnostic extends Diagnostic {
  code: DeployCode;
}

/**
 * Builds an error diagnostic.
 * @returns a fresh diagnostic; `help` only when given
 */
export function diagnostic(
  code: DeployCode,
  message: string,
  file: string,
  path: JsonPath,
  range: Range | undefined,
  help?: string,
): DeployDiagnostic {
  const d: DeployDiagnostic = { code, severity: 'error', message, file, path };
  if (range) d.range = range;
  if (help) d.help = help;
  return d;
}

/**
 * Where a diagnostic (or any place) is: `file:line:column`, or the file alone when it has no range.
 * @param d the diagnostic
 * @param fallback the name for a diagnostic without a file
 */
export function whereOf(d: Pick<Diagnostic, 'file' | 'range'>, fallback = '<config>'): string {
  const file = d.file ?? fallback;
  return d.range ? `${file}:${d.range.start.line}:${d.range.start.column}` : file;
}

/**
 * Renders diagnostics as `file:line:column: severity: message (at path) [code]` lines, for errors thrown at load.
 * @param diagnostics the findings
 * @returns one line per diagnostic
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const path = d.range || d.path.length === 0 ? '' : ` (at ${d.path.join('.')})`;
      return `${whereOf(d)}: ${d.severity}: ${d.message}${path} [${d.code}]`;
    })
    .join('\n');
}
