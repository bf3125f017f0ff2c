/**
 * Where a composed mode decides less restrictively than a reference mode: the start notices compare a
 * deployment's plan against the built-in plan alone. The tools asked about are a catalog's, every name either
 * mode's rules mention, one sample name per glob, and a tool nobody named (`grid.ts`'s rows); each is asked with
 * its declared hints, with none, and with each of the 16 combinations of the four hints, so a widening through
 * `effects` or a glob is found as well as one by name. Pure.
 * @module
 */
import type { ToolCatalogEntry } from './catalog.js';
import { compareRestrictiveness } from './document.js';
import { collectToolRows, HINT_COMBINATIONS } from './grid.js';
import type { CompiledPolicy, DecideResult, Decision, Hints, RuleRef } from './types.js';

/** One tool the mode decides less restrictively than the reference. */
export interface Widening {
  /** The row's label: the tool name, or the glob or probe it stands for. */
  label: string;
  before: Decision;
  after: Decision;
  /** The hints the tool must declare for the widening, when it is not its declared (or absent) hints. */
  hints?: Readonly<Hints>;
  /** The rule of `mode` that decides it. */
  rule: RuleRef;
}

/**
 * The tools `mode` decides less restrictively than `reference`, the first widening hint set for each.
 * @param mode the composed mode
 * @param reference the mode it is compared with
 * @param tools the catalog to ask about besides the names the rules mention
 * @returns one entry per widened row, in row order
 */
export function findWidenings(
  mode: CompiledPolicy,
  reference: CompiledPolicy,
  tools: readonly ToolCatalogEntry[],
): Widening[] {
  const sources = [mode, reference].map((p) => (p.documents ?? []).map((d) => d.source));
  const found: Widening[] = [];
  for (const row of collectToolRows(sources, tools, 'builtin')) {
    const probes: (Readonly<Hints> | undefined)[] = [row.hints, undefined, ...HINT_COMBINATIONS];
    for (const hints of probes) {
      const now = mode.decide(row.name, hints);
      const before = reference.decide(row.name, hints);
      if (!wider(row.name, now, before)) continue;
      const widening: Widening = {
        label: row.label,
        before: before.decision,
        after: now.decision,
        rule: now.rule,
      };
      if (hints !== row.hints && hints !== undefined) widening.hints = hints;
      found.push(widening);
      break;
    }
  }
  return found;
}

/** `exit_plan_mode` is asked whatever its decision says, so allow and ask are the same for it. */
function wider(name: string, now: DecideResult, before: DecideResult): boolean {
  const rank = (d: DecideResult) =>
    name === 'exit_plan_mode' && d.decision === 'allow' ? 'ask' : d.decision;
  return compareRestrictiveness(rank(now), rank(before)) < 0;
}
