import rule from '../../../../src/compile/lint/rules/no-op-rule.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'the built-in plan', policy: 'mode: plan\n', builtin: true },
    {
      name: 'a rule with path patterns narrows per call, whatever its name-level decision',
      builtin: true,
      policy:
        'mode: plan\ntools:\n  read: { paths: { ".env*": deny } }\n  write: { decision: deny, paths: { "a": deny } }\n',
    },
    {
      name: 'every rule matters',
      policy: 'mode: review\ntools:\n  read: allow\n  bash: ask\ndefault: deny\n',
    },
    {
      name: 'an effect with a reason',
      policy:
        'mode: review\ntools:\n  read: allow\neffects:\n  destructive: { decision: deny, reason: No changes. }\ndefault: deny\n',
    },
    {
      name: 'a reason documents intent',
      policy:
        'mode: review\ntools:\n  write: { decision: deny, reason: Reviews do not write. }\ndefault: deny\n',
    },
    {
      name: 'a glob that beats an effect for read-only tools',
      policy: 'mode: review\ntools:\n  "mcp__*": deny\neffects:\n  readOnly: allow\ndefault: deny\n',
    },
    {
      name: 'a deny that matters for tools declaring read-only hints',
      builtin: true,
      policy: 'mode: plan\ntools:\n  bash: deny\n',
    },
    {
      name: 'a narrowing document without default',
      builtin: true,
      policy: 'mode: plan\ntools:\n  web_fetch: deny\n',
    },
    {
      name: 'a specific glob whose names a broader glob would otherwise take',
      policy: 'mode: review\ntools:\n  "*_foo": allow\n  "mcp__gh__*": deny\ndefault: deny\n',
    },
  ],
  invalid: [
    {
      name: 'same decision as the default',
      policy: 'mode: review\ntools:\n  read: allow\n  write: deny\ndefault: deny\n',
      errors: [
        {
          messageId: 'noEffect',
          line: 4,
          column: 3,
          message: 'rule `write: deny` changes nothing: mode `review` decides the same without it',
        },
      ],
    },
    {
      name: 'already allowed by the built-in plan',
      builtin: true,
      policy: 'mode: plan\ntools:\n  grep: allow\n  web_fetch: deny\n',
      errors: [{ messageId: 'noEffect', line: 3, column: 3 }],
    },
    {
      name: 'a duplicate selector through braces',
      policy: 'mode: review\ntools:\n  read: allow\n  "{read,grep}": allow\ndefault: deny\n',
      errors: [
        // `read: allow` is also redundant: the braced selector allows `read` too.
        { messageId: 'noEffect', line: 3, column: 3 },
        {
          messageId: 'duplicate',
          line: 4,
          column: 3,
          message: 'selector `{read,grep}` repeats `read` from `read`',
        },
      ],
    },
    {
      name: 'an effect the default already gives',
      policy: 'mode: review\ntools:\n  read: allow\neffects:\n  destructive: deny\ndefault: deny\n',
      errors: [
        {
          messageId: 'noEffect',
          line: 5,
          column: 3,
          message:
            'rule `effects.destructive: deny` changes nothing: mode `review` decides the same without it',
        },
      ],
    },
  ],
});
