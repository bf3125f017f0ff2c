import rule from '../../../../src/compile/lint/rules/conflicting-globs.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'agreeing globs', policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "*_read": deny\n' },
    {
      name: 'different specificity',
      policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "mcp__*_read": allow\n',
    },
    { name: 'disjoint globs', policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "web_*": allow\n' },
    { name: 'disjoint classes', policy: 'mode: review\ntools:\n  "t[ab]": deny\n  "t[cd]": allow\n' },
    { name: 'exact names never conflict', policy: 'mode: review\ntools:\n  read: allow\n  "rea?": deny\n' },
  ],
  invalid: [
    {
      name: 'prefix and suffix globs that meet',
      policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "*_read": allow\n',
      errors: [
        {
          messageId: 'conflict',
          line: 4,
          column: 3,
          endLine: 4,
          endColumn: 11,
          message:
            'glob `*_read` conflicts with `mcp__*`: both match `mcp__read` with specificity 5 but decide `allow` and `deny`',
        },
      ],
    },
    {
      name: 'a brace alternative',
      policy: 'mode: review\ntools:\n  "{web,net}_*": allow\n  "?eb_x*": ask\n',
      errors: [{ messageId: 'conflict', line: 4, column: 3 }],
    },
    {
      name: 'overlapping classes',
      policy: 'mode: review\ntools:\n  "tool_[a-m]": allow\n  "tool_[k-z]": deny\n  "tool_?": ask\n',
      errors: [
        { messageId: 'conflict', line: 4, column: 3 },
        // One finding per conflicting pair: `tool_?` meets both classes.
        { messageId: 'conflict', line: 5, column: 3 },
        { messageId: 'conflict', line: 5, column: 3 },
      ],
    },
  ],
});
