/**
 * The closed set of codes that loading (parse, validate, load) reports, and small helpers to build and order
 * diagnostics. Lint rules add their own codes; these are the ones that refuse a file when their severity is error.
 * @module
 */
import type { Diagnostic, JsonPath, Range, Severity } from './types.js';

/** Every code parse, validate and load can report. Closed: callers may switch over it exhaustively. */
export type LoadCode =
  | 'io'
  | 'syntax'
  | 'duplicate-key'
  | 'too-large'
  | 'too-deep'
  | 'alias-limit'
  | 'schema'
  | 'unknown-key'
  | 'missing-key'
  | 'invalid-type'
  | 'invalid-decision'
  | 'invalid-mode-name'
  | 'reserved-mode-name';

/** A diagnostic whose code is one of {@link LoadCode}. */
export interface LoadDiagnostic extends Diagnostic {
  code: LoadCode;
}

/**
 * Builds a load diagnostic; `range` and `help` are set only when given.
 * @returns a fresh diagnostic object
 */
export function makeDiagnostic(
  code: LoadCode,
  severity: Severity,
  message: string,
  file: string | null,
  path: JsonPath,
  range?: Range,
  help?: string,
): LoadDiagnostic {
  const d: LoadDiagnostic = { code, severity, message, file, path };
  if (range) d.range = range;
  if (help) d.help = help;
  return d;
}

/** True when any diagnostic has severity `error`. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/**
 * Sorts by (file, start position, code) and drops exact duplicates, as reported output should be.
 * @returns a new array
 */
export function sortDiagnostics<T extends Diagnostic>(diagnostics: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const d of diagnostics) {
    const key = JSON.stringify([d.file, d.range, d.code, d.message, d.path]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out.sort(
    (a, b) =>
      cmp(a.file ?? '', b.file ?? '') ||
      (a.range?.start.line ?? 0) - (b.range?.start.line ?? 0) ||
      (a.range?.start.column ?? 0) - (b.range?.start.column ?? 0) ||
      cmp(a.code, b.code),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
