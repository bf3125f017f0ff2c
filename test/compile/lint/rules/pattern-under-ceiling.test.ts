import rule from '../../../../src/compile/lint/rules/pattern-under-ceiling.js';
import { testRule } from './rule-tester.js';

const BASE = [
  'mode: team',
  'tools:',
  '  bash:',
  '    decision: deny',
  '    commands:',
  '      "git log **": allow',
  '      "git push **": deny',
  '  read:',
  '    decision: allow',
  '    paths:',
  '      ".env*": deny',
  'default: deny',
  '',
].join('\n');

const operator = (...lines: string[]) => ['mode: team', 'tools:', ...lines, ''].join('\n');

testRule(rule, {
  valid: [
    {
      name: 'narrowing under the ceiling',
      policy: [
        BASE,
        operator('  bash:', '    commands:', '      "git log -p **": deny', '      "git log **": allow'),
      ],
    },
    { name: 'the first document of its mode', policy: [BASE] },
    {
      name: 'an override widens',
      policy: [
        BASE,
        [
          'mode: team',
          'override: true',
          'tools:',
          '  bash:',
          '    commands:',
          '      "git push **": allow',
          '',
        ].join('\n'),
      ],
    },
    {
      name: 'an allow the earlier document allows too',
      policy: [BASE, operator('  bash:', '    commands:', '      "git log --oneline **": allow')],
    },
  ],
  invalid: [
    {
      name: 'an operator allow of a command the earlier document denies',
      policy: [BASE, operator('  bash:', '    commands:', '      "git push **": allow')],
      errors: [
        {
          file: 'b.yaml',
          messageId: 'capped',
          line: 5,
          column: 7,
          message:
            'pattern `git push **: allow` changes nothing for `git push x`: mode `team` denies it by `git push **` at a.yaml:7:7 before this document',
        },
      ],
    },
    {
      name: 'an ask the earlier base denies',
      policy: [BASE, operator('  bash:', '    commands:', '      "rm *": ask')],
      errors: [
        {
          file: 'b.yaml',
          messageId: 'capped',
          line: 5,
          column: 7,
          message:
            'pattern `rm *: ask` changes nothing for `rm x`: mode `team` denies it by `bash` at a.yaml:3:3 before this document',
        },
      ],
    },
    {
      name: 'a path the earlier document denies',
      policy: [BASE, operator('  read:', '    paths:', '      ".env.example": allow')],
      errors: [{ file: 'b.yaml', messageId: 'capped', line: 5, column: 7 }],
    },
    {
      name: 'a tool the earlier document denies by name',
      policy: [
        ['mode: team', 'tools:', '  write: deny', ''].join('\n'),
        operator('  write:', '    paths:', '      "notes/**": allow'),
      ],
      errors: [
        {
          file: 'b.yaml',
          messageId: 'capped',
          line: 5,
          column: 7,
          message:
            'pattern `notes/**: allow` changes nothing for `notes/a`: mode `team` denies it by `write` at a.yaml:3:3 before this document',
        },
      ],
    },
  ],
});
