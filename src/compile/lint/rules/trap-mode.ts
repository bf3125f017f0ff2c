/**
 * `trap-mode`: a mode that denies every tool, `exit_plan_mode` included. The agent can do nothing and cannot
 * propose leaving, so only a user flip gets the session out. Reported once per mode, on its last document.
 *
 * Probed names: every name each selector of the mode spells out (its exact names and glob skeletons), the
 * catalog's tools, `exit_plan_mode` and a name no selector matches, each with every combination of the hints the
 * mode's `effects` read;
 * if all of them are denied the mode is a trap. A mode that allows only a tool whose name no probe reaches is a
 * false positive, and not a realistic one.
 * @module
 */
import { exampleNames } from '../../decide/glob-overlap.js';
import { hintSets, UNMATCHED_PROBE } from '../context.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'trap-mode',
  meta: {
    description: 'a mode denies every tool and offers no exit',
    severity: 'warning',
    messages: {
      trap: {
        text: 'mode `{{mode}}` denies every tool and offers no exit',
        help: 'allow or ask for at least one tool, or add `exit_plan_mode: ask` so the agent can propose leaving',
      },
    },
    docs: {
      failing: 'mode: locked\ndefault: deny\n',
      passing: 'mode: locked\ntools:\n  read: allow\n  exit_plan_mode: ask\ndefault: deny\n',
      fix: 'Give the mode something to do (a read-only tool) and a way out (`exit_plan_mode: ask`).',
    },
  },
  check(context, report) {
    if (context.modeDocuments.at(-1) !== context.source) return;
    const policy = context.compose('mode');
    const probes = hintSets(context.modeDocuments);
    const seen = new Set<string>();
    // Names are tried as they are found, and the first one the mode does not deny ends the check: a mode that
    // allows anything usually shows it on its first names, so big modes need not list every name first.
    const allowsSome = (name: string): boolean => {
      if (seen.has(name)) return false;
      seen.add(name);
      return probes.some((hints) => policy.decide(name, hints).decision !== 'deny');
    };
    if (allowsSome('exit_plan_mode') || allowsSome(UNMATCHED_PROBE)) return;
    for (const tool of context.catalog ?? []) if (allowsSome(tool.name)) return;
    for (const doc of context.modeDocuments) {
      for (const rule of context.selectors(doc)) {
        for (const alternative of rule.alternatives) {
          if (alternative.name !== undefined) {
            if (allowsSome(alternative.name)) return;
          } else {
            for (const name of exampleNames(alternative.pattern)) if (allowsSome(name)) return;
          }
        }
      }
    }
    report({ messageId: 'trap', data: { mode: context.source.document.mode }, path: ['mode'] });
  },
});
