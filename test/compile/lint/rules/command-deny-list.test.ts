import rule from '../../../../src/compile/lint/rules/command-deny-list.js';
import { testRule } from './rule-tester.js';

const bash = (...lines: string[]) =>
  ['mode: team', 'tools:', '  bash:', ...lines.map((l) => `    ${l}`), ''].join('\n');

testRule(rule, {
  valid: [
    {
      name: 'an allowlist: base deny, allow patterns, deny patterns for their options',
      policy: bash('decision: deny', 'commands:', '  "git log **": allow', '  "git log ** --output*": deny'),
    },
    { name: 'a rule without a base', policy: bash('commands:', '  "git push **": deny') },
    {
      name: 'an allow base with asks only',
      policy: bash('decision: allow', 'commands:', '  "git push **": ask'),
    },
    {
      name: 'an allow base with deny paths, not commands',
      policy: [
        'mode: team',
        'tools:',
        '  read:',
        '    decision: allow',
        '    paths:',
        '      ".env*": deny',
        '',
      ].join('\n'),
    },
    { name: 'the built-in plan', policy: 'mode: plan\n', builtin: true },
  ],
  invalid: [
    {
      name: 'the obvious rule',
      policy: bash('decision: allow', 'commands:', '  "git push **": deny', '  "rm **": deny'),
      errors: [
        {
          messageId: 'denyList',
          line: 4,
          column: 5,
          message:
            'rule `bash` allows every command except what its deny patterns name (`git push **`), and a deny list is never complete: `git send-pack` also pushes',
        },
      ],
    },
    {
      name: 'a flow mapping, under a glob selector',
      policy: 'mode: team\ntools:\n  "ba*": { decision: allow, commands: { "git push **": deny } }\n',
      errors: [{ messageId: 'denyList', line: 3, column: 12 }],
    },
  ],
});
