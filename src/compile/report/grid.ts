/**
 * The modes × tools grid behind `dsh-mode matrix` and `dsh-mode diff`: which tools to ask about, and with which
 * hints. Deciding a row is the caller's (the engine's `authorize`); this module only chooses the questions.
 *
 * The tools (in this order, each name once):
 * 1. the catalog's tools with their hints (`--tools`); without a catalog, the reference host's built-in tools
 *    with their declared hints, so the grid shows what a stock deployment would do with `write` or `bash`;
 * 2. every name a rule mentions literally (brace alternatives count: `{read,list}` names both), sorted;
 * 3. one sample name per glob alternative (so `mcp__*` appears as the row `mcp__*`, decided for the name
 *    `mcp__x`: see `sampleName` in `glob-syntax.ts`, or for another fill such as `mcp__q` when a glob at least as
 *    specific also matches `mcp__x`), sorted by pattern, unless the sample is already a row; a
 *    glob that matches nothing has no row. A tool above that the glob matches does not replace the sample: a
 *    more specific rule may decide that tool, so `todo_*: allow` must still be asked about `todo_x`;
 * 4. two probes for tools nobody named: `(other tool)` without hints and `(other read-only tool)` declaring
 *    `readOnly`, which show what `effects` and `default` decide.
 * Names from rules and samples carry no hints unless the catalog (or the built-ins) gives some.
 *
 * Hint probes: `effects` decide by hints, so every row that stands for a selector is also asked with each of
 * the 16 combinations of the four hints ({@link HINT_COMBINATIONS}): a name a rule mentions (a catalog tool
 * too), a glob's sample, a catalog tool that stands for a glob, and `(other tool)`. A catalog tool no selector
 * mentions resolves like `(other tool)` does, so its probes would repeat that row's; it is asked only with the
 * hints it declares. Callers keep a probe only where it changes an answer (see
 * {@link hintProbes}), so no widening by hints goes unseen and unchanged probes add no rows.
 *
 * Argument probes: a row whose tool has a rule with `commands:` or `paths:` (on either side) is also asked with
 * calls whose command or path matches each pattern or just misses it ({@link argumentRows}), so a widening of one
 * command or path shows as that call. Callers keep them as they keep hint probes. Pure: no I/O.
 * @module
 */
import {
  argumentProbes,
  changedFirst,
  writtenArgumentRules,
  type WrittenArgumentRule,
} from '../lint/argument-probes.js';
import { unmatchedName } from './glob-witness.js';
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import type { CompiledPolicySet } from '../decide/compile.js';
import { HINT_NAMES } from '../decide/document.js';
import { parseSelector, type SelectorAlternative } from '../language/glob.js';
import { sampleName } from '../language/glob-syntax.js';
import type { Decision, HintName, Hints, RuleRef, SourceDocument } from '../types.js';

/** Where a row's tool came from. */
export type ToolSource = 'catalog' | 'builtin' | 'rule' | 'glob' | 'probe' | 'argument' | 'witness';

/** One row of the grid: the name decided, and the label shown. */
export interface ToolRow {
  /** The tool name passed to `decide`. */
  name: string;
  /** What people see: the name, the glob a sample stands for, or the probe's description. */
  label: string;
  source: ToolSource;
  hints?: Hints;
  /** Whether the row is also asked with every hint combination (see the module header). */
  probeHints?: boolean;
  /** Set on a hint probe: the combination it was asked with (every hint explicit). */
  probe?: Readonly<Required<Hints>>;
  /** Set on an argument probe: the call's arguments (`{command: "git push"}`), see {@link argumentRows}. */
  arguments?: Readonly<Record<string, string>>;
}

/** One cell: a mode's decision for a tool. */
export interface Cell {
  decision: Decision;
  /** Whether the model sees the tool (the decision is not deny). */
  visible: boolean;
  reason: string | null;
  rule: RuleRef;
  /** The argument pattern that decided, with its location, when the call's arguments did. */
  pattern?: RuleRef;
}

/** The name for a tool no rule names when no unmatched name can be found (every name is covered). */
const PROBE_NAME = '\u2063dsh-mode-other-tool\u2063';
/** What a glob's sample puts for `*` and `?`: `x` first, then others until no more specific glob decides it. */
const SAMPLE_FILLS = ['x', 'q', 'z', '0', '_', '-', '.', '\u2063'];

/**
 * A name for a glob's row that the glob itself decides: the first sample (see {@link SAMPLE_FILLS}) that no
 * literal name and no other glob at least as specific also matches, else the first sample that matches at all.
 * Otherwise `mcp__*: allow` beside `mcp__x*: deny` would be asked only about `mcp__x`, which the second decides.
 */
function pickSample(
  pattern: string,
  alt: SelectorAlternative,
  others: readonly SelectorAlternative[],
  literals: ReadonlySet<string>,
): string | undefined {
  let first: string | undefined;
  for (const fill of SAMPLE_FILLS) {
    const name = sampleName(pattern, fill);
    if (name === undefined || !alt.match(name)) continue;
    first ??= name;
    if (literals.has(name)) continue;
    const shadowed = others.some(
      (o) => o.pattern !== alt.pattern && o.specificity >= alt.specificity && o.match(name),
    );
    if (!shadowed) return name;
  }
  return first;
}

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
  const catalogRows = rows.length;
  const literals = new Set<string>();
  const globs = new Map<string, SelectorAlternative>();
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
  for (const name of [...literals].sort(byCodeUnit)) {
    // A catalog tool a rule names is a selector too: other documents of its mode may still decide it by hints.
    const listed = rows.find((r) => r.name === name);
    if (listed) listed.probeHints = true;
    else add({ name, label: name, source: 'rule', probeHints: true });
  }
  for (const [pattern, alt] of [...globs].sort(([a], [b]) => byCodeUnit(a, b))) {
    // A catalog tool the glob matches is asked with every hint combination too, as well as the glob's sample.
    const standing = rows.filter((r) => r.source !== 'probe' && alt.match(r.name));
    for (const row of standing) if (rows.indexOf(row) < catalogRows) row.probeHints = true;
    const sample = pickSample(pattern, alt, [...globs.values()], literals);
    if (sample !== undefined) add({ name: sample, label: pattern, source: 'glob', probeHints: true });
  }
  // "A tool no rule names" must be a name no selector of either side matches, or a document that covers the
  // fixed probe name could hide a widened default (the fixed name stays when every name is covered).
  const globList = [...globs.values()];
  const other = unmatchedName(globList, new Set([...literals, ...named])) ?? PROBE_NAME;
  const otherReadOnly = unmatchedName(globList, new Set([...literals, ...named, other])) ?? `${PROBE_NAME}ro`;
  rows.push({ name: other, label: '(other tool)', source: 'probe', probeHints: true });
  rows.push({
    name: otherReadOnly,
    label: '(other read-only tool)',
    source: 'probe',
    hints: { readOnly: true },
  });
  return rows;
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

/** The 16 combinations of the four hints, every hint explicit; bit i of the index is `HINT_NAMES[i]`. */
export const HINT_COMBINATIONS: readonly Readonly<Required<Hints>>[] = Object.freeze(
  Array.from({ length: 16 }, (_, k) =>
    Object.freeze(
      Object.fromEntries(HINT_NAMES.map((h, i) => [h, (k & (1 << i)) !== 0])) as Record<HintName, boolean>,
    ),
  ),
);

/**
 * The label of a hint combination: the hints that are true, in canonical order, or `none`.
 * @returns for example `[readOnly, idempotent]`
 */
export function hintLabel(hints: Readonly<Required<Hints>>): string {
  const on = HINT_NAMES.filter((h) => hints[h]);
  return `[${on.length > 0 ? on.join(', ') : 'none'}]`;
}

/**
 * The hint probes of a row worth showing: each combination is judged, and kept when `shows` says it tells the
 * reader something the row's own answer does not, and its `key` differs from every key in `seen` and from the
 * probes kept before it (so each different answer is shown once, with the first combination that gives it).
 * @param row the row; rows without `probeHints` have no probes
 * @param judge answers one row (a grid line of cells, or a before/after pair)
 * @param shows whether an answer is worth a row (for matrix: it changes a decision of the row)
 * @param key what makes two answers the same for the reader (decisions and deciding rules)
 * @param seen keys already shown elsewhere (the `(other read-only tool)` row, for `(other tool)`)
 * @returns the probes to show, in canonical combination order, each with its answer
 */
export function hintProbes<T>(
  row: ToolRow,
  judge: (row: ToolRow) => T,
  shows: (answer: T) => boolean,
  key: (answer: T) => string,
  seen: Iterable<string> = [],
): { row: ToolRow; answer: T }[] {
  if (!row.probeHints) return [];
  const known = new Set(seen);
  const out: { row: ToolRow; answer: T }[] = [];
  for (const probe of HINT_COMBINATIONS) {
    const probed: ToolRow = {
      name: row.name,
      label: `${row.label} ${hintLabel(probe)}`,
      source: row.source,
      hints: probe,
      probe,
    };
    const answer = judge(probed);
    if (!shows(answer)) continue;
    const k = key(answer);
    if (known.has(k)) continue;
    known.add(k);
    out.push({ row: probed, answer });
  }
  return out;
}

const parsedSelectors = new WeakMap<readonly WrittenArgumentRule[], Map<string, SelectorAlternative[]>>();

/**
 * The argument rules of one or more loads, for {@link argumentRows}.
 * @param documentSets the documents of each side
 * @returns every `tools` rule with `commands:` or `paths:`, as written
 */
export function argumentRulesOf(documentSets: readonly (readonly SourceDocument[])[]): WrittenArgumentRule[] {
  return writtenArgumentRules(documentSets.flat());
}

/**
 * The argument rules of a diff's two sides, the patterns only NEW has first (see `changedFirst`).
 * @returns the rules for {@link argumentRows}
 */
export function changedArgumentRules(
  before: readonly SourceDocument[],
  after: readonly SourceDocument[],
): WrittenArgumentRule[] {
  return changedFirst(writtenArgumentRules(after), writtenArgumentRules(before));
}

/**
 * The argument probes of a row: for every rule with `commands:` or `paths:` whose selector matches the row's
 * tool, calls with commands and paths that match each pattern and that just miss it (`argument-probes.ts`).
 * Each is a row of its own, labelled with the call (`bash command="git push"`), with the row's hints.
 * @param row a tool row (hint probes and the unnamed-tool probes have none)
 * @param rules what {@link argumentRulesOf} returned
 * @returns the rows, in rule and pattern order
 */
export function argumentRows(row: ToolRow, rules: readonly WrittenArgumentRule[]): ToolRow[] {
  if (row.source === 'probe' || row.probe !== undefined || row.arguments !== undefined) return [];
  let parsed = parsedSelectors.get(rules);
  if (parsed === undefined) parsedSelectors.set(rules, (parsed = new Map()));
  const cache = parsed;
  const matches = (selector: string) => {
    let alternatives = cache.get(selector);
    if (alternatives === undefined)
      cache.set(selector, (alternatives = parseSelector(selector).alternatives));
    return alternatives.some((alt) => alt.match(row.name));
  };
  return argumentProbes(rules, matches).map((probe) => ({
    name: row.name,
    label: `${row.label} ${probe.label}`,
    source: 'argument' as const,
    ...hintsOf(row.hints),
    arguments: probe.arguments,
  }));
}

/**
 * Whether a row is the `(other read-only tool)` probe, which already shows the read-only answer for unnamed tools.
 * @returns true for that row
 */
export function isReadOnlyProbe(row: ToolRow): boolean {
  return row.source === 'probe' && row.hints?.readOnly === true && row.probe === undefined;
}

function hintsOf(hints: Hints | undefined): { hints?: Hints } {
  return hints === undefined ? {} : { hints };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
