import rule from '../../../src/compile/rules/too-many-alternatives.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: '64 alternatives', policy: 'mode: review\ntools:\n  "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": deny\n' },
    { name: 'invalid glob is another rule', policy: 'mode: review\ntools:\n  "{a,b": deny\n' },
  ],
  invalid: [
    {
      name: '128 alternatives',
      policy: 'mode: review\ntools:\n  read: allow\n  "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": deny\n',
      errors: [
        {
          messageId: 'tooMany',
          line: 4,
          column: 3,
          message: 'selector `{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}` expands to more than 64 alternatives',
        },
      ],
    },
  ],
});
