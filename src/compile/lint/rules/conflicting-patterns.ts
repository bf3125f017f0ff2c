/**
 * `conflicting-patterns`: two patterns of one `commands:` or `paths:` table with the same specificity that can
 * match the same command or path and decide differently. The most specific matching pattern wins (its count of
 * literal characters); among equals the most restrictive does, which the author rarely means, so it is an error,
 * as `conflicting-globs` is for tool names.
 *
 * Only patterns of one table can tie: a call's name picks one tool rule per document, and across documents the
 * ceiling decides (the most restrictive document wins), not specificity. "Can match the same" is decided by a
 * witness search (`argument-overlap.ts`) whose result both matchers confirm; the message quotes it. Reported on
 * the later pattern, once per conflicting pair.
 * @module
 */
import { commonCommand, commonPath, pathAlternatives } from '../../decide/argument-overlap.js';
import { mostRestrictive } from '../../decide/document.js';
import type { ArgumentPattern } from '../../types.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'conflicting-patterns',
  meta: {
    description: 'argument patterns of equal specificity match the same command or path and disagree',
    severity: 'error',
    messages: {
      conflict: {
        text: 'pattern `{{pattern}}` conflicts with `{{other}}`: both match `{{subject}}` with specificity {{specificity}} but decide `{{decision}}` and `{{otherDecision}}`',
        help: 'the most restrictive decision, `{{winner}}`, wins the tie: make one pattern more specific (more literal characters), or give both the same decision',
      },
    },
    docs: {
      failing:
        'mode: review\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git *": allow\n      "* log": deny\n',
      passing:
        'mode: review\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git *": allow\n      "git log": deny\n',
      fix: 'Make the pattern you want to win more specific (more literal characters), or give both the same decision.',
    },
  },
  check(context, report) {
    for (const rule of context.argumentRules()) {
      for (const table of rule.tables) {
        const patterns = table.patterns.filter((p) => p.error === undefined);
        for (let j = 1; j < patterns.length; j++) {
          const later = patterns[j]!;
          for (let i = 0; i < j; i++) {
            const earlier = patterns[i]!;
            if (earlier.decision === later.decision) continue;
            const found =
              table.kind === 'commands' ? commandConflict(earlier, later) : pathConflict(earlier, later);
            if (found === undefined) continue;
            report({
              messageId: 'conflict',
              data: {
                pattern: later.source,
                other: earlier.source,
                subject: found.subject,
                specificity: found.specificity,
                decision: later.decision,
                otherDecision: earlier.decision,
                winner: mostRestrictive(later.decision, earlier.decision),
              },
              path: later.path,
            });
          }
        }
      }
    }
  },
});

interface Conflict {
  subject: string;
  specificity: number;
}

function commandConflict(a: ArgumentPattern, b: ArgumentPattern): Conflict | undefined {
  if (a.specificity !== b.specificity) return undefined;
  const words = commonCommand(a.source, b.source);
  return words === undefined ? undefined : { subject: words.join(' '), specificity: a.specificity };
}

function pathConflict(a: ArgumentPattern, b: ArgumentPattern): Conflict | undefined {
  for (const x of pathAlternatives(a.source)) {
    for (const y of pathAlternatives(b.source)) {
      if (x.specificity !== y.specificity) continue;
      const subject = commonPath(x, a.decision === 'allow', y, b.decision === 'allow');
      if (subject !== undefined) return { subject, specificity: x.specificity };
    }
  }
  return undefined;
}
