import rule from '../../../../src/compile/lint/rules/default-decided.js';
import { testRule } from './rule-tester.js';

const catalog = [
  { name: 'read' },
  { name: 'write' },
  { name: 'mcp__gh__list_issues', hints: { readOnly: true } },
];

testRule(rule, {
  valid: [
    { name: 'without a catalog', policy: 'mode: review\ndefault: deny\n' },
    {
      name: 'every tool decided by a rule or an effect',
      policy:
        'mode: review\ntools:\n  read: allow\n  write: deny\neffects:\n  readOnly: allow\ndefault: deny\n',
      catalog,
    },
    {
      // The operator cannot edit the built-in plan: its default is the design, so it is not reported there.
      name: "a tool only the built-in plan's default decides",
      builtin: true,
      policy: 'mode: plan\ntools:\n  read: deny\n',
      catalog: [{ name: 'write' }],
    },
  ],
  invalid: [
    {
      name: 'a tool only the default decides',
      policy: 'mode: review\ntools:\n  read: allow\neffects:\n  readOnly: allow\ndefault: deny\n',
      catalog,
      errors: [
        {
          messageId: 'byDefault',
          line: 6,
          column: 1,
          message: 'tool `write` is decided only by the default of mode `review`: `deny`',
        },
      ],
    },
    {
      name: 'no document decides',
      policy: 'mode: review\ntools:\n  read: allow\n  "mcp__*": ask\n',
      catalog,
      errors: [
        {
          messageId: 'undecided',
          line: 1,
          column: 1,
          message: 'no document of mode `review` decides tool `write`, so it is denied',
        },
      ],
    },
  ],
});
