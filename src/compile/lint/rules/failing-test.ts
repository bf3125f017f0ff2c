/**
 * `failing-test`: an inline test whose `expect` differs from what the mode decides. Per the policy language, docs/reference/policy-language.md, a
 * document's tests run against its mode as composed from the documents up to and including it, in load order:
 * a later file cannot make an earlier file's tests fail, and a test sees the ceiling of what came before.
 * A test without `annotations` calls the tool the catalog knows by that name (a built-in tool with its own
 * annotations), as `check` and the gate decide it.
 * @module
 */
import { decideCall } from '../../decide/call.js';
import { shownFile } from '../../builtin-plan.js';
import type { Hints, RuleRef } from '../../types.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'failing-test',
  meta: {
    description: 'an inline test expects a different decision than the mode makes',
    severity: 'error',
    messages: {
      failing: {
        text: 'test {{test}} expects `{{expect}}` for `{{tool}}` but mode `{{mode}}` decides `{{actual}}`',
        help: 'decided by `{{rule}}` {{where}}: change that rule or the expectation',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  write: allow\ntests:\n  - { tool: write, expect: deny }\n',
      passing: 'mode: review\ntools:\n  write: deny\ntests:\n  - { tool: write, expect: deny }\n',
      fix: 'Run `dsh-mode check MODE TOOL` to see which rule decides, then fix the rule or the expectation.',
    },
  },
  check(context, report) {
    const { document } = context.source;
    const upTo = context.compose('upTo');
    for (const [index, test] of (document.tests ?? []).entries()) {
      const hints: Hints | undefined = test.annotations;
      // With `args`, the call is decided as the gate decides it (paths resolve lexically: lint reads no files).
      const call = {
        name: test.tool,
        ...(test.args ? { arguments: test.args } : {}),
        ...(hints ? { hints } : {}),
      };
      const actual = decideCall(upTo, call);
      if (actual.decision === test.expect) continue;
      const { rule } = actual;
      const pattern = actual.pattern
        ? ` by pattern \`${actual.pattern.selector}\` ${at(actual.pattern)}`
        : '';
      report({
        messageId: 'failing',
        data: {
          test: test.name === undefined ? `#${index + 1}` : `\`${test.name}\``,
          expect: test.expect,
          tool: test.tool,
          mode: document.mode,
          actual: actual.decision,
          rule: rule.selector,
          where: rule.file === null ? '(no document decides this tool)' : `${at(rule)}${pattern}`,
        },
        path: ['tests', index],
      });
    }
  },
});

function at(rule: RuleRef): string {
  return `at ${shownFile(rule.file!)}:${rule.line}:${rule.column}`;
}
