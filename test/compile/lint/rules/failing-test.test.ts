import rule from '../../../../src/compile/lint/rules/failing-test.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'the built-in plan passes its own tests', policy: 'mode: plan\n', builtin: true },
    {
      name: 'annotations are honoured',
      policy:
        'mode: review\neffects:\n  readOnly: allow\ndefault: deny\ntests:\n  - { tool: x, annotations: { readOnly: true }, expect: allow }\n  - { tool: x, expect: deny }\n',
    },
    {
      name: 'a later document cannot fail an earlier one',
      policy: [
        'mode: review\ndefault: allow\ntests:\n  - { tool: bash, expect: allow }\n',
        'mode: review\ntools:\n  bash: deny\n',
      ],
    },
    {
      name: 'a test with `args` is decided by the argument patterns',
      policy:
        'mode: review\ntools:\n  read: { decision: allow, paths: { ".env*": deny } }\ntests:\n  - { tool: read, args: { path: .env.local }, expect: deny }\n  - { tool: read, args: { path: src/a.ts }, expect: allow }\n',
    },
  ],
  invalid: [
    {
      name: 'a wrong expectation for a call with `args`, naming the pattern',
      policy:
        'mode: review\ntools:\n  read: { decision: allow, paths: { ".env*": deny } }\ntests:\n  - { tool: read, args: { path: .env }, expect: allow }\n',
      errors: [
        {
          messageId: 'failing',
          line: 5,
          column: 5,
          message: 'test #1 expects `allow` for `read` but mode `review` decides `deny`',
        },
      ],
    },
    {
      name: 'a wrong expectation',
      policy:
        'mode: review\ntools:\n  write: allow\ntests:\n  - { tool: read, expect: deny }\n  - { name: no writes, tool: write, expect: deny }\n',
      errors: [
        {
          messageId: 'failing',
          line: 6,
          column: 5,
          endLine: 6,
          endColumn: 51,
          message: 'test `no writes` expects `deny` for `write` but mode `review` decides `allow`',
        },
      ],
    },
    {
      name: 'composed with the built-in plan: a ceiling',
      builtin: true,
      policy: 'mode: plan\ntools:\n  write: allow\ntests:\n  - { tool: write, expect: allow }\n',
      errors: [
        {
          messageId: 'failing',
          line: 5,
          column: 5,
          message: 'test #1 expects `allow` for `write` but mode `plan` decides `deny`',
        },
      ],
    },
  ],
});
