import rule from '../../../../src/compile/lint/rules/invalid-glob.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { policy: 'mode: review\ntools:\n  "mcp__*": deny\n  "t[ab]?": allow\n  "{a,b}_x": ask\n' },
    { name: 'escaped bracket', policy: 'mode: review\ntools:\n  "a\\\\[b": deny\n' },
    {
      name: 'closed classes in patterns, an escaped `[` in a path, and the test commands `[` and `[[`',
      policy:
        'mode: review\ntools:\n  read:\n    decision: allow\n    paths:\n      "src/[ab]/**": deny\n      "docs/\\\\[x": deny\n' +
        '  bash:\n    decision: deny\n    commands:\n      "ls [ab]*": allow\n      "[ **": allow\n      "[[ ** ]]": allow\n',
    },
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
    {
      name: 'an unclosed `[` in a path pattern and in a command pattern',
      policy:
        'mode: review\ntools:\n  read:\n    decision: allow\n    paths:\n      "src/[ab": deny\n' +
        '  bash:\n    decision: deny\n    commands:\n      "ls [abc": allow\n      "[ -f x ] && cat [y": allow\n',
      errors: [
        {
          messageId: 'pattern',
          line: 6,
          column: 7,
          message: 'path pattern `src/[ab` is not a valid glob: unclosed `[` at column 5',
        },
        {
          messageId: 'pattern',
          line: 10,
          column: 7,
          message: 'command pattern `ls [abc` is not a valid glob: unclosed `[` at column 4',
        },
        {
          messageId: 'pattern',
          line: 11,
          column: 7,
          message: 'command pattern `[ -f x ] && cat [y` is not a valid glob: unclosed `[` at column 17',
        },
      ],
    },
  ],
});
