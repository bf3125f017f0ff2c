/**
 * The modes × tools grid behind `dsh-mode matrix` and `dsh-mode diff`: which tools to ask about, and each
 * mode's decision for each of them with the rule that decided.
 *
 * The tools (in this order, each name once):
 * 1. the catalog's tools with their hints (`--tools`); without a catalog, the reference host's built-in tools
 *    with their declared hints, so the grid shows what a stock deployment would do with `write` or `bash`;
 * 2. every name a rule mentions literally (brace alternatives count: `{read,list}` names both), sorted;
 * 3. one sample name per glob alternative that nothing above already stands for (so `mcp__*` appears as the
 *    row `mcp__*`, decided for the name `mcp__x`: each `*` or `?` becomes `x`, a class its first character),
 *    sorted by pattern; a glob whose sample does not match itself is left out;
 * 4. two probes for tools nobody named: `(other tool)` without hints and `(other read-only tool)` declaring
 *    `readOnly`, which show what `effects` and `default` decide.
 * Names from rules and samples carry no hints unless the catalog (or the built-ins) gives some.
 *
 * A mode a side does not define is denied for every tool (the engine fails closed on an undefined mode), with
 * the rule `(mode not defined)`. Pure: no I/O.
 * @module
 */
import type { ToolCatalogEntry } from '../compile/catalog.js';
import type { CompiledPolicySet } from '../compile/compile.js';
import { parseSelector } from '../compile/glob.js';
import type { SourceDocument } from '../compile/load.js';
import type { CompiledPolicy, Decision, Hints, RuleRef } from '../compile/types.js';

/** Where a row's tool came from. */
export type ToolSource = 'catalog' | 'builtin' | 'rule' | 'glob' | 'probe';

/** One row of the grid: the name decided, and the label shown. */
export interface ToolRow {
  /** The tool name passed to `decide`. */
  name: string;
  /** What people see: the name, the glob a sample stands for, or the probe's description. */
  label: string;
  source: ToolSource;
  hints?: Hints;
}

/** One cell: a mode's decision for a tool. */
export interface Cell {
  decision: Decision;
  /** Whether the model sees the tool (the decision is not deny). */
  visible: boolean;
  reason: string | null;
  rule: RuleRef;
}

/** The rule reported for every tool of a mode that is not defined. */
export const UNDEFINED_MODE_RULE: RuleRef = Object.freeze({
  selector: '(mode not defined)',
  file: null,
  line: null,
  column: null,
});

const PROBE_NAME = '\u2063dsh-mode-other-tool\u2063';

/**
 * Collects the rows for one or more loads (the union, for diff).
 * @param documentSets the documents of each side
 * @param catalog the catalog, or the default tools when none was given
 * @param catalogSource whether `catalog` came from `--tools` or is the default
 * @returns the rows, in the order described in the module header
 */
export function collectToolRows(
  documentSets: readonly (readonly SourceDocument[])[],
  catalog: readonly ToolCatalogEntry[],
  catalogSource: 'catalog' | 'builtin',
): ToolRow[] {
  const rows: ToolRow[] = [];
  const named = new Set<string>();
  const add = (row: ToolRow) => {
    if (named.has(row.name)) return;
    named.add(row.name);
    rows.push(row);
  };
  for (const tool of catalog)
    add({ name: tool.name, label: tool.name, source: catalogSource, ...hintsOf(tool.hints) });
  const literals = new Set<string>();
  const globs = new Map<string, { match(name: string): boolean }>();
  for (const documents of documentSets) {
    for (const { document } of documents) {
      for (const selector of Object.keys(document.tools ?? {})) {
        for (const alt of parseSelector(selector).alternatives) {
          if (!alt.isGlob && alt.name !== undefined) literals.add(alt.name);
          else if (alt.isGlob && !globs.has(alt.pattern)) globs.set(alt.pattern, alt);
        }
      }
    }
  }
  for (const name of [...literals].sort(byCodeUnit)) add({ name, label: name, source: 'rule' });
  for (const [pattern, alt] of [...globs].sort(([a], [b]) => byCodeUnit(a, b))) {
    if (rows.some((r) => r.source !== 'probe' && alt.match(r.name))) continue;
    const sample = sampleName(pattern);
    if (sample !== undefined && alt.match(sample)) add({ name: sample, label: pattern, source: 'glob' });
  }
  rows.push({ name: PROBE_NAME, label: '(other tool)', source: 'probe' });
  rows.push({
    name: `${PROBE_NAME}ro`,
    label: '(other read-only tool)',
    source: 'probe',
    hints: { readOnly: true },
  });
  return rows;
}

/**
 * A mode's decision for one row.
 * @param policy the compiled mode, or undefined when the side does not define it
 * @param row the tool
 * @returns the cell
 */
export function decideCell(policy: CompiledPolicy | undefined, row: ToolRow): Cell {
  if (policy === undefined)
    return { decision: 'deny', visible: false, reason: null, rule: UNDEFINED_MODE_RULE };
  const result = policy.decide(row.name, row.hints);
  return {
    decision: result.decision,
    visible: result.decision !== 'deny',
    reason: result.reason ?? null,
    rule: result.rule,
  };
}

/**
 * The mode names of one or more compiled sets, in order of first appearance.
 * @param sets compiled policy sets
 * @returns the names
 */
export function modeNames(...sets: readonly CompiledPolicySet[]): string[] {
  const names: string[] = [];
  for (const set of sets) for (const name of set.modes.keys()) if (!names.includes(name)) names.push(name);
  return names;
}

/** A name that matches a glob pattern: wildcards become `x`, a class its first member, escapes their character. */
export function sampleName(pattern: string): string | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) out += pattern[++i];
    else if (c === '*' || c === '?') {
      if (!out.endsWith('x') || c === '?') out += 'x';
    } else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) return undefined;
      const body = pattern.slice(i + 1, close);
      if (body.startsWith('!') || body.startsWith('^')) {
        const excluded = body.slice(1);
        out += [...'xyz_0'].find((ch) => !excluded.includes(ch)) ?? 'x';
      } else {
        out += body.startsWith('[:') ? 'x' : body.charAt(0);
      }
      i = close;
    } else out += c;
  }
  return out;
}

function hintsOf(hints: Hints | undefined): { hints?: Hints } {
  return hints === undefined ? {} : { hints };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
