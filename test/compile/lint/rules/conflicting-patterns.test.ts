import rule from '../../../../src/compile/lint/rules/conflicting-patterns.js';
import { testRule } from './rule-tester.js';

const bash = (...lines: string[]) =>
  [
    'mode: review',
    'tools:',
    '  bash:',
    '    decision: deny',
    '    commands:',
    ...lines.map((l) => `      ${l}`),
    '',
  ].join('\n');
const read = (...lines: string[]) =>
  ['mode: review', 'tools:', '  read:', '    paths:', ...lines.map((l) => `      ${l}`), ''].join('\n');

testRule(rule, {
  valid: [
    { name: 'agreeing patterns', policy: bash('"git *": deny', '"* log": deny') },
    { name: 'different specificity', policy: bash('"git **": allow', '"git push **": deny') },
    { name: 'disjoint word counts', policy: bash('"git *": allow', '"* log x": deny') },
    { name: 'disjoint words', policy: bash('"git l*": allow', '"git p*": deny') },
    { name: 'disjoint paths', policy: read('"src/*": allow', '"doc/*": deny') },
    {
      name: 'tables of different tools never tie',
      policy: [
        'mode: review',
        'tools:',
        '  bash:',
        '    commands:',
        '      "git *": allow',
        '  sh:',
        '    commands:',
        '      "* log": deny',
        '',
      ].join('\n'),
    },
    {
      name: 'documents compose by the ceiling, not by specificity',
      policy: [bash('"git *": allow'), bash('"* log": deny')],
    },
  ],
  invalid: [
    {
      name: 'a prefix and a suffix pattern that meet',
      policy: bash('"git *": allow', '"* log": deny'),
      errors: [
        {
          messageId: 'conflict',
          line: 7,
          column: 7,
          message:
            'pattern `* log` conflicts with `git *`: both match `git log` with specificity 3 but decide `deny` and `allow`',
        },
      ],
    },
    {
      name: 'the same words spaced differently',
      policy: bash('"git  log": allow', '"git log": ask'),
      errors: [{ messageId: 'conflict', line: 7, column: 7 }],
    },
    {
      name: 'any-words patterns of equal weight',
      policy: bash('"rm ** -rf": ask', '"rm -rf **": allow'),
      errors: [
        {
          messageId: 'conflict',
          line: 7,
          column: 7,
          message:
            'pattern `rm -rf **` conflicts with `rm ** -rf`: both match `rm -rf` with specificity 5 but decide `allow` and `ask`',
        },
      ],
    },
    {
      name: 'path globs that meet',
      policy: read('"src/*.md": allow', '"*/notes.*": deny'),
      errors: [
        {
          messageId: 'conflict',
          line: 6,
          column: 7,
          message:
            'pattern `*/notes.*` conflicts with `src/*.md`: both match `src/notes.md` with specificity 7 but decide `deny` and `allow`',
        },
      ],
    },
    {
      name: 'a brace alternative',
      policy: read('"{docs,src}/**": allow', '"**/docs": deny'),
      errors: [{ messageId: 'conflict', line: 6, column: 7 }],
    },
  ],
});
