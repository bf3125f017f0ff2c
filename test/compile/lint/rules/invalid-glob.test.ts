import rule from '../../../../src/compile/lint/rules/invalid-glob.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "t[ab]?": allow\n  "{a,b}_x": ask\n' },
    { name: 'escaped bracket', policy: 'mode: review\ntools:\n  "a\\\\[b": deny\n' },
  ],
  invalid: [
    {
      name: 'unclosed class',
      policy: 'mode: review\ntools:\n  read: allow\n  "mcp__[gh__*": deny\n',
      errors: [
        {
          messageId: 'invalid',
          line: 4,
          column: 3,
          message: 'selector `mcp__[gh__*` is not a valid glob: unclosed `[` at column 6',
        },
      ],
    },
    {
      name: 'unbalanced braces',
      policy: 'mode: review\ntools:\n  "{a,b": deny\n  "c}": allow\n',
      errors: [
        {
          messageId: 'invalid',
          line: 3,
          column: 3,
          message: 'selector `{a,b` is not a valid glob: unclosed `{`',
        },
        { messageId: 'invalid', line: 4, column: 3 },
      ],
    },
  ],
});
