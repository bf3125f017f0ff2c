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
import { mostRestrictive } from '../document.js';
import { exampleNames, findCommonName } from '../glob-overlap.js';
import {
  UNMATCHED_PROBE,
  type SelectorAlternative,
  type SelectorIndex,
  type SelectorRule,
} from '../lint-context.js';
import type { Decision, Hints, JsonPath } from '../types.js';
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
    // Each pattern with the first selector that has it; no map when no pattern repeats (most documents).
    const seen = context.patternsMayRepeat() ? new Map<string, string>() : undefined;
    const rules = context.selectors();
    const hintSets = context.hintProbes();
    for (const rule of rules) {
      if (rule.error !== undefined) continue;
      const repeated = seen === undefined ? undefined : repeatedAlternative(seen, rule);
      if (repeated !== undefined) {
        report({
          messageId: 'duplicate',
          data: { selector: rule.selector, pattern: repeated.pattern, other: seen!.get(repeated.pattern)! },
          path: rule.path,
        });
        continue;
      }
      // Argument patterns change decisions per call: probing names cannot tell that they change nothing.
      if (rule.reason !== undefined || rule.byArguments) continue;
      if (changesNothing(context, hintSets, probesFor(context, rule), rule.path)) {
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
      if (changesNothing(context, hintSets, names, path)) {
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
function probesFor(context: RuleContext, rule: SelectorRule): readonly string[] {
  const only = rule.alternatives.length === 1 ? rule.alternatives[0]! : undefined;
  // One exact name (most rules): that name, without the bookkeeping below (its closure is made on every call).
  return only?.name !== undefined ? [only.name] : probesOfAlternatives(context, rule);
}

/** {@link probesFor} of a rule with a glob or several alternatives. */
function probesOfAlternatives(context: RuleContext, rule: SelectorRule): string[] {
  const alternatives = rule.alternatives;
  // A name probed twice gives the same answer twice: duplicates cost time, never a different finding, so a few
  // names are kept in an array (no set per rule) and a set is made only when they are many.
  const names: string[] = [];
  let seen: Set<string> | undefined;
  const add = (n: string) => {
    if (seen !== undefined) {
      if (!seen.has(n)) (seen.add(n), names.push(n));
    } else if (!names.includes(n)) {
      names.push(n);
      if (names.length > 16) seen = new Set(names);
    }
  };
  let index: SelectorIndex | undefined;
  for (const alt of alternatives) {
    if (alt.name !== undefined) {
      add(alt.name);
      continue;
    }
    for (const n of exampleNames(alt.pattern)) if (alt.match(n)) add(n);
    // Only names and globs whose literal prefix fits this glob's can be matched by it or share a name with it.
    const prefix = alt.prefix ?? '';
    index ??= context.selectorIndex();
    for (const { alternative: o, rule: other } of index.exact.startingWith(prefix)) {
      if (other !== rule && alt.match(o.name!)) add(o.name!);
    }
    // When no glob prefix starts another, the only glob compatible with this one is itself.
    if (index.globs.hasCompatiblePair()) {
      for (const { alternative: o, rule: other } of index.globs.compatibleWith(prefix)) {
        if (other === rule || o.specificity > alt.specificity) continue;
        const shared = findCommonName(alt, o);
        if (shared !== undefined) add(shared);
      }
    }
    for (const tool of context.catalog ?? []) if (alt.match(tool.name)) add(tool.name);
  }
  return names;
}

function changesNothing(
  context: RuleContext,
  hintSets: readonly Hints[],
  names: readonly string[],
  without: JsonPath,
): boolean {
  for (const name of names) {
    for (const hints of hintSets) {
      // Fast path: the document decides the same either way, so the composition cannot differ.
      const own = context.decisionInDocument(name, hints);
      const ownWithout = context.decisionInDocument(name, hints, without);
      if (own !== undefined && own === ownWithout) continue;
      // This document is the last of its composition: the mode up to it is the ceiling of the documents before
      // it and its own decision, so one look at the earlier documents answers both "with" and "without".
      const before = context.decisionBefore(name, hints);
      if (ceiling(before, own) !== ceiling(before, ownWithout)) return false;
    }
  }
  return true;
}

/** The decision of a composition from the earlier documents' and the last document's (deny when neither decides). */
function ceiling(before: Decision | undefined, last: Decision | undefined): Decision {
  if (before === undefined) return last ?? 'deny';
  if (last === undefined) return before;
  return mostRestrictive(before, last);
}
