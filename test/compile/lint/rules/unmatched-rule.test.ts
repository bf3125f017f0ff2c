import rule from '../../../../src/compile/lint/rules/unmatched-rule.js';
import { testRule } from './rule-tester.js';

const catalog = [
  { name: 'read' },
  { name: 'write' },
  { name: 'mcp__gh__list_issues', hints: { readOnly: true } },
];

testRule(rule, {
  valid: [
    { name: 'without a catalog', policy: 'mode: review\ntools:\n  raed: allow\n' },
    {
      name: 'names and globs that match',
      policy: 'mode: review\ntools:\n  read: allow\n  "mcp__*": deny\n',
      catalog,
    },
    { name: 'the engine tool', policy: 'mode: review\ntools:\n  exit_plan_mode: ask\n', catalog },
    { name: 'the built-in plan is not checked', policy: 'mode: plan\n', builtin: true, catalog },
  ],
  invalid: [
    {
      name: 'a typo',
      policy: 'mode: review\ntools:\n  raed: allow\n  write: deny\n',
      catalog,
      errors: [
        {
          messageId: 'unmatchedNear',
          line: 3,
          column: 3,
          message: 'selector `raed` matches no tool in the catalog',
        },
      ],
    },
    {
      name: 'a glob for a server that is gone, and one brace alternative',
      policy: 'mode: review\ntools:\n  "mcp__jira__*": deny\n  "{read,lsp_hover}": allow\n',
      catalog,
      errors: [
        { messageId: 'unmatched', line: 3, column: 3 },
        {
          messageId: 'unmatched',
          line: 4,
          column: 3,
          message: 'selector `lsp_hover` matches no tool in the catalog',
        },
      ],
    },
  ],
});
