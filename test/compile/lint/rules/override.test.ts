import rule from '../../../../src/compile/lint/rules/override.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [{ policy: 'mode: plan\ntools:\n  web_fetch: deny\n' }, { policy: 'mode: plan\noverride: false\n' }],
  invalid: [
    {
      policy: 'mode: plan\ntools:\n  write: ask\noverride: true\ndefault: deny\n',
      builtin: true,
      errors: [
        {
          messageId: 'override',
          line: 4,
          column: 1,
          endLine: 4,
          endColumn: 9,
          message: 'this document replaces every earlier document of mode `plan`',
        },
      ],
    },
  ],
});
