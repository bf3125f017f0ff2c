import rule from '../../../../src/compile/lint/rules/exit-without-approval.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'ask', policy: 'mode: plan\ntools:\n  exit_plan_mode: ask\n' },
    { name: 'deny by default', policy: 'mode: review\ndefault: deny\n' },
    { name: 'abstaining document', policy: 'mode: review\ntools:\n  read: allow\n' },
    { name: 'the built-in plan', policy: 'mode: plan\n', builtin: true },
  ],
  invalid: [
    {
      name: 'by name',
      policy: 'mode: plan\ntools:\n  read: allow\n  exit_plan_mode: allow\n',
      errors: [
        {
          messageId: 'allowed',
          line: 4,
          column: 3,
          message:
            '`exit_plan_mode` is allowed by `exit_plan_mode` in mode `plan`: the engine asks for approval anyway',
        },
      ],
    },
    {
      name: 'by a glob',
      policy: 'mode: auto\ntools:\n  "exit_*": allow\n',
      errors: [{ messageId: 'allowed', line: 3, column: 3 }],
    },
    {
      name: 'by the default',
      policy: 'mode: auto\ntools:\n  bash: ask\ndefault: allow\n',
      errors: [{ messageId: 'allowed', line: 4, column: 1 }],
    },
  ],
});
