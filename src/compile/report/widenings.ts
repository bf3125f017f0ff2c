/**
 * Where a composed mode decides less restrictively than a reference mode: the start notices compare a
 * deployment's plan against the built-in plan alone. The tools asked about are a catalog's, every name either
 * mode's rules mention, one sample name per glob, and a tool nobody named (`grid.ts`'s rows); each is asked with
 * its declared hints, with none, and with each of the 16 combinations of the four hints, so a widening through
 * `effects` or a glob is found as well as one by name. Pure.
 *
 * Arguments too: a tool that either mode decides with `commands:` or `paths:` is also asked with calls whose
 * command or path matches each pattern or just misses it (`grid.ts`'s argument rows, the patterns only `mode`
 * has first), decided call by call (`decideCall`), so an `override` that allows `git push` through `bash` is
 * found as the call `bash command="git push"`. One widening is kept per tool and deciding rule or pattern of
 * `mode`: the first call it widens. A tool `mode` decides by such a rule is not reported by name (its name-level
 * answer only says whether the tool is visible), and a rule reported by name is not repeated for its calls. When
 * `mode` only adds documents to `reference` (no `override`), the ceiling rules out a wider call and none is asked.
 * @module
 */
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import { decideCall, dependsOnArguments, hasArgumentRules } from '../decide/call.js';
import { compareRestrictiveness } from '../decide/document.js';
import { argumentRows, changedArgumentRules, collectToolRows, HINT_COMBINATIONS } from './grid.js';
import type { CompiledDocument, CompiledPolicy, DecideResult, Decision, Hints, RuleRef } from '../types.js';

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
  /** Set for a call with arguments: the arguments (`{command: "git push"}`); `label` shows them too. */
  arguments?: Readonly<Record<string, string>>;
  /** The argument pattern of `mode` that decides the call, with its location, when one does. */
  pattern?: RuleRef;
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
  const [now, before] = sources as [(typeof sources)[0], (typeof sources)[0]];
  const byArguments =
    (hasArgumentRules(mode) || hasArgumentRules(reference)) && !composesOver(mode, reference);
  const rules = byArguments ? changedArgumentRules(before, now) : [];
  const found: Widening[] = [];
  for (const row of collectToolRows(sources, tools, 'builtin')) {
    // Which rules and patterns of `mode` already widen this tool: each is reported once.
    const reported = new Set<string>();
    const probes: (Readonly<Hints> | undefined)[] = [row.hints, undefined, ...HINT_COMBINATIONS];
    for (const hints of probes) {
      const after = mode.decide(row.name, hints);
      const was = reference.decide(row.name, hints);
      if (!wider(row.name, after, was)) continue;
      // A rule with patterns answers by name only whether the tool is visible: its calls are asked below.
      if (byArguments && dependsOnArguments(mode, row.name, hints)) continue;
      const widening: Widening = {
        label: row.label,
        before: was.decision,
        after: after.decision,
        rule: after.rule,
      };
      if (hints !== row.hints && hints !== undefined) widening.hints = hints;
      found.push(widening);
      reported.add(refKey(after.rule));
      break;
    }
    for (const call of byArguments ? argumentRows(row, rules) : []) {
      const input = {
        name: call.name,
        ...(call.hints ? { hints: call.hints } : {}),
        arguments: call.arguments,
      };
      const after = decideCall(mode, input);
      const was = decideCall(reference, input);
      if (!wider(row.name, after, was)) continue;
      const key = refKey(after.pattern ?? after.rule);
      if (reported.has(key)) continue;
      reported.add(key);
      const widening: Widening = {
        label: call.label,
        before: was.decision,
        after: after.decision,
        rule: after.rule,
        arguments: call.arguments!,
      };
      if (after.pattern) widening.pattern = after.pattern;
      found.push(widening);
    }
  }
  return found;
}

/**
 * Whether `mode` is `reference` with more documents composed after it, so that no call can be wider: the ceiling
 * makes each call at least as restrictive as every reference document says, and a reference document with a
 * `default` decides every call completely. Then the argument probes (a thousand calls for plan) are skipped.
 * Documents are compared by file and content, since the two modes may be loaded apart.
 */
function composesOver(mode: CompiledPolicy, reference: CompiledPolicy): boolean {
  const ref = reference.documents ?? [];
  if (!ref.some((d) => d.source.document.default !== undefined)) return false;
  const key = (d: CompiledDocument) => JSON.stringify([d.source.file, d.source.document]);
  const have = new Set((mode.documents ?? []).map(key));
  return ref.every((d) => have.has(key(d)));
}

function refKey(rule: RuleRef): string {
  return JSON.stringify([rule.file, rule.line, rule.column, rule.selector]);
}

/** `exit_plan_mode` is asked whatever its decision says, so allow and ask are the same for it. */
function wider(
  name: string,
  now: Pick<DecideResult, 'decision'>,
  before: Pick<DecideResult, 'decision'>,
): boolean {
  const rank = (d: Pick<DecideResult, 'decision'>) =>
    name === 'exit_plan_mode' && d.decision === 'allow' ? 'ask' : d.decision;
  return compareRestrictiveness(rank(now), rank(before)) < 0;
}
