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
  // Duplicates share file, code and message: only within such a group is the full key (range and path) built, so a
  // lint of tens of thousands of distinct findings does not serialise each one.
  const groups = new Map<string, { first: T; keys?: Set<string> }>();
  const fullKey = (d: T) => JSON.stringify([d.file, d.range, d.code, d.message, d.path]);
  const out: T[] = [];
  for (const d of diagnostics) {
    const group = `${d.file ?? '\u0000'}\u0000${d.code}\u0000${d.message}`;
    const seen = groups.get(group);
    if (seen === undefined) {
      groups.set(group, { first: d });
      out.push(d);
      continue;
    }
    seen.keys ??= new Set([fullKey(seen.first)]);
    const key = fullKey(d);
    if (seen.keys.has(key)) continue;
    seen.keys.add(key);
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
