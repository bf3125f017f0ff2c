/**
 * `unmatched-rule` (needs `--tools CATALOG`): a selector, or one of its brace alternatives, that matches no
 * catalogued tool: usually a typo or a renamed tool, whose rule then silently decides nothing. The help names
 * the nearest catalogued names by edit distance.
 *
 * `exit_plan_mode` counts as catalogued (the engine provides it), and the built-in plan is not checked (users
 * cannot edit it, and it names tools some deployments lack on purpose).
 * @module
 */
import { suggest } from '../../language/suggest.js';
import { defineRule } from './define.js';

const ENGINE_TOOLS = ['exit_plan_mode'];

export default defineRule({
  id: 'unmatched-rule',
  meta: {
    description: 'a selector matches no tool of the catalog',
    severity: 'warning',
    messages: {
      unmatched: {
        text: 'selector `{{pattern}}` matches no tool in the catalog',
        help: 'check the name against the catalog, or remove the rule',
      },
      unmatchedNear: {
        text: 'selector `{{pattern}}` matches no tool in the catalog',
        help: 'did you mean {{suggestions}}?',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  raed: allow\n',
      passing: 'mode: review\ntools:\n  read: allow\n',
      fix: 'Correct the selector to a catalogued tool name, or remove the rule if the tool is gone.',
    },
  },
  check(context, report) {
    if (context.catalog === undefined || context.isBuiltin) return;
    const names = [...context.catalog.map((t) => t.name), ...ENGINE_TOOLS];
    for (const rule of context.selectors()) {
      for (const alt of rule.alternatives) {
        if (names.some((name) => alt.match(name))) continue;
        const near = suggest(alt.name ?? alt.pattern, names, 3);
        report({
          messageId: near.length > 0 ? 'unmatchedNear' : 'unmatched',
          data: { pattern: alt.pattern, suggestions: near.map((n) => `\`${n}\``).join(', ') },
          path: rule.path,
        });
      }
    }
  },
});
