import rule from '../../../../src/compile/lint/rules/trap-mode.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'the built-in plan', policy: 'mode: plan\n', builtin: true },
    { name: 'one allowed tool', policy: 'mode: locked\ntools:\n  read: allow\ndefault: deny\n' },
    {
      name: 'read-only tools by effect',
      policy: 'mode: locked\neffects:\n  readOnly: allow\ndefault: deny\n',
    },
    { name: 'an exit', policy: 'mode: locked\ntools:\n  exit_plan_mode: ask\ndefault: deny\n' },
  ],
  invalid: [
    {
      name: 'deny everything',
      policy: 'mode: locked\ndefault: deny\n',
      errors: [
        {
          messageId: 'trap',
          line: 1,
          column: 1,
          endLine: 1,
          endColumn: 5,
          message: 'mode `locked` denies every tool and offers no exit',
        },
      ],
    },
    {
      name: 'catalogued tools are probed too',
      policy: 'mode: locked\ntools:\n  "*": deny\n',
      catalog: [{ name: 'read', hints: { readOnly: true } }],
      errors: [{ messageId: 'trap', line: 1, column: 1 }],
    },
    {
      name: 'a later document closes the last door, reported on it',
      policy: ['mode: locked\ntools:\n  read: allow\n', 'mode: locked\ntools:\n  read: deny\n'],
      errors: [{ messageId: 'trap', line: 1, column: 1, file: 'b.yaml' }],
    },
  ],
});
