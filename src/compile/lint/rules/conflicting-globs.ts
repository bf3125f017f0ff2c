/**
 * `conflicting-globs`: two globs of one document with the same specificity that can match the same tool name
 * and decide differently. The compiler resolves such a tie to the most restrictive decision (the policy language,
 * docs/reference/policy-language.md), but the author clearly meant one of them to win, so it is an error.
 *
 * "Can match the same name" is decided by `findCommonName`, a search over both patterns that returns a
 * witness name verified by both matchers; the message quotes it, so every finding is checkable. Only brace
 * alternatives of *different* selectors are compared (one selector has one decision). Reported on the later
 * selector, once per conflicting pair.
 * @module
 */
import { findCommonName } from '../../decide/glob-overlap.js';
import type { SelectorAlternative } from '../context.js';
import { mostRestrictive } from '../../decide/document.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'conflicting-globs',
  meta: {
    description: 'globs of equal specificity match the same tool and disagree',
    severity: 'error',
    messages: {
      conflict: {
        text: 'glob `{{pattern}}` conflicts with `{{other}}`: both match `{{name}}` with specificity {{specificity}} but decide `{{decision}}` and `{{otherDecision}}`',
        help: 'the most restrictive decision, `{{winner}}`, wins the tie: make one glob more specific, or add an exact rule for the names they share',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  "mcp__*": deny\n  "*_read": allow\n',
      passing: 'mode: review\ntools:\n  "mcp__*": deny\n  "mcp__*_read": allow\n',
      fix: 'Make the glob you want to win more specific (more literal characters), or give both the same decision.',
    },
  },
  check(context, report) {
    const rules = context.selectors();
    for (let j = 1; j < rules.length; j++) {
      const later = rules[j]!;
      for (let i = 0; i < j; i++) {
        const earlier = rules[i]!;
        if (earlier.decision === later.decision) continue;
        const found = firstConflict(earlier.alternatives, later.alternatives);
        if (found === undefined) continue;
        const [a, b, name] = found;
        const winner = mostRestrictive(later.decision, earlier.decision);
        report({
          messageId: 'conflict',
          data: {
            pattern: b.pattern,
            other: a.pattern,
            name,
            specificity: b.specificity,
            decision: later.decision,
            otherDecision: earlier.decision,
            winner,
          },
          path: later.path,
        });
      }
    }
  },
});

type Alt = SelectorAlternative;

function firstConflict(left: readonly Alt[], right: readonly Alt[]): [Alt, Alt, string] | undefined {
  for (const a of left) {
    for (const b of right) {
      if (!a.isGlob || !b.isGlob || a.specificity !== b.specificity) continue;
      const name = findCommonName(a, b);
      if (name !== undefined) return [a, b, name];
    }
  }
  return undefined;
}
