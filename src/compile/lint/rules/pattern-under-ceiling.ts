/**
 * `pattern-under-ceiling`: an allow or ask pattern in a later document of a mode that tries to widen what an
 * earlier document decides. Documents of a mode compose as a ceiling (the most restrictive answer wins), so such a
 * pattern changes nothing for that command or path: `git push **: allow` in an operator's plan file leaves `git
 * push` denied by the built-in plan. Only `override: true` widens, by replacing the earlier documents.
 *
 * Probed, not proved: the pattern's own probes (`argument-probes.ts`: commands and paths that match it) are
 * decided by this document alone, keeping those this pattern decides, and by the earlier documents; the first
 * probe the earlier documents decide more restrictively is quoted with their deciding rule. Documents that open
 * their mode, or replace it with `override`, are not checked.
 * @module
 */
import { commandProbes, pathProbes } from '../argument-probes.js';
import { decideCall } from '../../decide/call.js';
import { RESTRICTIVENESS } from '../../decide/document.js';
import { sampleName } from '../../language/glob-syntax.js';
import type { RuleRef } from '../../types.js';
import { defineRule } from './define.js';

/** Probes tried per pattern. */
const PROBES = 6;
const VERB = { deny: 'denies', ask: 'asks for', allow: 'allows' } as const;

export default defineRule({
  id: 'pattern-under-ceiling',
  meta: {
    description: 'an allow or ask pattern cannot widen what an earlier document of its mode decides',
    severity: 'warning',
    messages: {
      capped: {
        text: 'pattern `{{pattern}}: {{decision}}` changes nothing for `{{subject}}`: mode `{{mode}}` {{verb}} it by {{rule}} before this document',
        help: 'documents of a mode compose as a ceiling, so a later one only narrows: use `override: true` to widen (it replaces the earlier documents), or remove the pattern',
      },
    },
    docs: {
      before:
        'mode: plan\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git status": allow\n      "git push **": deny\n',
      failing:
        'mode: plan\ntools:\n  bash:\n    commands:\n      "git status": allow\n      "git push **": allow\n',
      passing: 'mode: plan\ntools:\n  bash:\n    commands:\n      "git status": allow\n',
      fix: 'Remove the pattern, or, to really widen the mode, write the whole mode with `override: true`.',
    },
  },
  check(context, report) {
    const mode = context.source.document.mode;
    // A document that opens its mode, or replaces it, has no earlier document to be capped by.
    const before = context.compose('before');
    if (before === undefined) return;
    const alone = context.compose('alone');
    for (const rule of context.argumentRules()) {
      const names = (context.selectors().find((s) => s.selector === rule.selector)?.alternatives ?? [])
        .map((alt) => alt.name ?? sampleName(alt.pattern))
        .filter((n): n is string => n !== undefined);
      for (const table of rule.tables) {
        const siblings = table.patterns.map((p) => p.source);
        for (const p of table.patterns) {
          if (p.decision === 'deny' || p.error !== undefined) continue;
          const probes = (
            table.kind === 'commands' ? commandProbes(p.source, siblings) : pathProbes(p.source)
          ).slice(0, PROBES);
          found: for (const name of names) {
            for (const subject of probes) {
              const call = { name, arguments: { [table.argument]: subject } };
              const own = decideCall(alone, call).pattern;
              if (own === undefined || own.selector !== p.source || own.line !== p.ref.line) continue;
              const earlier = decideCall(before, call);
              if (RESTRICTIVENESS[earlier.decision] <= RESTRICTIVENESS[p.decision]) continue;
              report({
                messageId: 'capped',
                data: {
                  pattern: p.source,
                  decision: p.decision,
                  subject,
                  mode,
                  verb: VERB[earlier.decision],
                  rule: describe(earlier.pattern ?? earlier.rule),
                },
                path: p.path,
              });
              break found;
            }
          }
        }
      }
    }
  },
});

function describe(rule: RuleRef): string {
  if (rule.file === null) return 'its default';
  const file = rule.file.split('/').at(-1);
  return `\`${rule.selector}\` at ${file}:${rule.line ?? 1}:${rule.column ?? 1}`;
}
