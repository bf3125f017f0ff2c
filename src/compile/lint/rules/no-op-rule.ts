/**
 * `no-op-rule`: a rule that changes nothing. Two cases:
 * - a *duplicate selector*: a brace alternative that an earlier selector of the document already spells out;
 * - a rule without a custom `reason` whose removal changes no decision of its mode as composed up to and
 *   including this document (for example `write: deny` next to `default: deny`, or under the built-in plan).
 *
 * "No decision changes" is probed, not proved: the names a `tools` rule can win (see `probesFor`) and the
 * catalogued tools it matches; an `effects` rule is probed with a name no selector matches and the catalogued
 * tools; each name with every combination of the hints the mode's `effects` read. A rule with a `reason` is never
 * a no-op: its reason is what the model reads when it is denied. Nor is a rule with `commands` or `paths`, whose
 * patterns decide per call.
 * @module
 */
import { exampleNames, findCommonName } from '../../decide/glob-overlap.js';
import { hintSets, UNMATCHED_PROBE, type SelectorAlternative, type SelectorRule } from '../context.js';
import type { CompiledPolicy, Hints, JsonPath } from '../../types.js';
import { defineRule, type RuleContext } from './define.js';

export default defineRule({
  id: 'no-op-rule',
  meta: {
    description: 'a rule repeats a selector or changes no decision',
    severity: 'info',
    messages: {
      duplicate: {
        text: 'selector `{{selector}}` repeats `{{pattern}}` from `{{other}}`',
        help: 'remove the repetition: two rules for one name tie, and the most restrictive wins',
      },
      noEffect: {
        text: 'rule `{{selector}}: {{decision}}` changes nothing: mode `{{mode}}` decides the same without it',
        help: 'remove it, or give it a `reason` if it documents intent',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  read: allow\n  write: deny\ndefault: deny\n',
      passing: 'mode: review\ntools:\n  read: allow\ndefault: deny\n',
      fix: 'Delete the rule, or keep it with a `reason` that the model will read when it is denied.',
    },
  },
  check(context, report) {
    const mode = context.source.document.mode;
    // Each pattern with the first selector that has it.
    const seen = new Map<string, string>();
    const hints = hintSets(context.modeDocuments);
    const upTo = context.compose('upTo');
    /** Whether the mode up to here decides `names` the same without the entry at `entry`. */
    const changesNothing = (entry: JsonPath, names: readonly string[]) =>
      sameDecisions(upTo, context.compose('upTo', { entry, names }), names, hints);
    for (const rule of context.selectors()) {
      if (rule.error !== undefined) continue;
      const repeated = repeatedAlternative(seen, rule);
      if (repeated !== undefined) {
        report({
          messageId: 'duplicate',
          data: { selector: rule.selector, pattern: repeated.pattern, other: seen.get(repeated.pattern)! },
          path: rule.path,
        });
        continue;
      }
      // Argument patterns change decisions per call: probing names cannot tell that they change nothing.
      if (rule.reason !== undefined || rule.byArguments) continue;
      if (changesNothing(rule.path, probesFor(context, rule))) {
        report({
          messageId: 'noEffect',
          data: { selector: rule.selector, decision: rule.decision, mode },
          path: rule.path,
        });
      }
    }
    for (const [key, value] of Object.entries(context.source.document.effects ?? {})) {
      if (value === undefined || (typeof value !== 'string' && value.reason !== undefined)) continue;
      const names = [UNMATCHED_PROBE, ...(context.catalog ?? []).map((t) => t.name)];
      const path: JsonPath = ['effects', key];
      if (changesNothing(path, names)) {
        const decision = typeof value === 'string' ? value : value.decision;
        report({ messageId: 'noEffect', data: { selector: `effects.${key}`, decision, mode }, path });
      }
    }
  },
});

/** The first alternative of `rule` whose pattern an earlier one has; records the rule's new patterns in `seen`. */
function repeatedAlternative(seen: Map<string, string>, rule: SelectorRule): SelectorAlternative | undefined {
  let repeated: SelectorAlternative | undefined;
  for (const alt of rule.alternatives) {
    if (!seen.has(alt.pattern)) seen.set(alt.pattern, rule.selector);
    else repeated ??= alt;
  }
  return repeated;
}

/**
 * The names whose decision a `tools` rule can change. An exact name changes only itself. A glob changes the names
 * it wins: its skeletons, the exact names of other selectors it matches, and a name it shares with each glob that
 * could take over without it (equal or lower specificity: a more specific glob wins those names anyway).
 */
function probesFor(context: RuleContext, rule: SelectorRule): string[] {
  const names = new Set<string>();
  for (const alt of rule.alternatives) {
    if (alt.name !== undefined) {
      names.add(alt.name);
      continue;
    }
    for (const n of exampleNames(alt.pattern)) if (alt.match(n)) names.add(n);
    for (const other of context.selectors()) {
      if (other === rule) continue;
      for (const o of other.alternatives) {
        if (o.name !== undefined) {
          if (alt.match(o.name)) names.add(o.name);
        } else if (o.specificity <= alt.specificity) {
          const shared = findCommonName(alt, o);
          if (shared !== undefined) names.add(shared);
        }
      }
    }
    for (const tool of context.catalog ?? []) if (alt.match(tool.name)) names.add(tool.name);
  }
  return [...names];
}

/** Whether two compositions decide every name with every hint set alike. */
function sameDecisions(
  a: CompiledPolicy,
  b: CompiledPolicy,
  names: readonly string[],
  hintSets: readonly Hints[],
): boolean {
  return names.every((name) =>
    hintSets.every((hints) => a.decide(name, hints).decision === b.decide(name, hints).decision),
  );
}
