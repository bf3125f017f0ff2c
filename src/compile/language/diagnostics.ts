/**
 * The closed set of codes that loading (parse, validate, load) reports, and small helpers to build and order
 * diagnostics. Lint rules add their own codes; these are the ones that refuse a file when their severity is error.
 * @module
 */
import type { Diagnostic, JsonPath, Range, Severity } from '../types.js';

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
  // Files compared once each, as ranks, and positions read once: most comparisons are then between numbers.
  const files = [...new Set(diagnostics.map((d) => d.file ?? ''))].sort(cmp);
  const rankOf = new Map(files.map((f, i) => [f, i]));
  const rank = new Float64Array(diagnostics.length);
  const line = new Float64Array(diagnostics.length);
  const column = new Float64Array(diagnostics.length);
  diagnostics.forEach((d, i) => {
    rank[i] = rankOf.get(d.file ?? '')!;
    line[i] = d.range?.start.line ?? 0;
    column[i] = d.range?.start.column ?? 0;
  });
  const order = diagnostics.map((_, i) => i);
  // Ties keep their order (`i - j`), as the stable sort of the diagnostics themselves did.
  order.sort(
    (i, j) =>
      rank[i]! - rank[j]! ||
      line[i]! - line[j]! ||
      column[i]! - column[j]! ||
      cmp(diagnostics[i]!.code, diagnostics[j]!.code) ||
      i - j,
  );
  // Exact duplicates agree on file, start and code, so once sorted they are in one run of equal keys, the first
  // given first: only a run of several is compared by full key (a lint of tens of thousands of distinct findings
  // neither serialises nor hashes each one).
  const sameKey = (i: number, j: number) =>
    rank[i] === rank[j] &&
    line[i] === line[j] &&
    column[i] === column[j] &&
    diagnostics[i]!.code === diagnostics[j]!.code;
  const out: T[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && sameKey(order[start]!, order[end]!)) end++;
    if (end - start === 1) out.push(diagnostics[order[start]!]!);
    else out.push(...withoutDuplicates(order.slice(start, end).map((i) => diagnostics[i]!)));
    start = end;
  }
  return out;
}

/** The diagnostics without exact duplicates (same file, range, code, message and path), the first of each kept. */
function withoutDuplicates<T extends Diagnostic>(run: readonly T[]): T[] {
  const seen = new Set<string>();
  return run.filter((d) => {
    const key = JSON.stringify([d.file, d.range, d.code, d.message, d.path]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
