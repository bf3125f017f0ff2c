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
  // lint of tens of thousands of distinct findings does not serialise each one. Groups are nested maps rather than
  // one joined key: no string of every message to build and hash.
  const groups = new Map<string | null, Map<string, Map<string, { first: T; keys?: Set<string> }>>>();
  const fullKey = (d: T) => JSON.stringify([d.file, d.range, d.code, d.message, d.path]);
  const out: T[] = [];
  for (const d of diagnostics) {
    let byCode = groups.get(d.file);
    if (byCode === undefined) groups.set(d.file, (byCode = new Map()));
    let byMessage = byCode.get(d.code);
    if (byMessage === undefined) byCode.set(d.code, (byMessage = new Map()));
    const seen = byMessage.get(d.message);
    if (seen === undefined) {
      byMessage.set(d.message, { first: d });
      out.push(d);
      continue;
    }
    seen.keys ??= new Set([fullKey(seen.first)]);
    const key = fullKey(d);
    if (seen.keys.has(key)) continue;
    seen.keys.add(key);
    out.push(d);
  }
  // Files compared once each, as ranks, and positions read once: most comparisons are then between numbers.
  const files = [...new Set(out.map((d) => d.file ?? ''))].sort(cmp);
  const rankOf = new Map(files.map((f, i) => [f, i]));
  const rank = new Float64Array(out.length);
  const line = new Float64Array(out.length);
  const column = new Float64Array(out.length);
  out.forEach((d, i) => {
    rank[i] = rankOf.get(d.file ?? '')!;
    line[i] = d.range?.start.line ?? 0;
    column[i] = d.range?.start.column ?? 0;
  });
  const order = out.map((_, i) => i);
  // Ties keep their order (`i - j`), as the stable sort of the diagnostics themselves did.
  order.sort(
    (i, j) =>
      rank[i]! - rank[j]! ||
      line[i]! - line[j]! ||
      column[i]! - column[j]! ||
      cmp(out[i]!.code, out[j]!.code) ||
      i - j,
  );
  return order.map((i) => out[i]!);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
