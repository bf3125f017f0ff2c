import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../../../src/compile/decide/compile.js';
import { loadPolicyText } from '../../../../src/compile/language/load.js';
import rule from '../../../../src/compile/lint/rules/unmatchable-pattern.js';
import { authorize } from '../../../../src/engine/authorize.js';
import { testRule } from './rule-tester.js';

const table = (tool: string, kind: string, ...lines: string[]) =>
  ['mode: review', 'tools:', `  ${tool}:`, `    ${kind}:`, ...lines.map((l) => `      ${l}`), ''].join('\n');

testRule(rule, {
  valid: [
    {
      name: 'plain command words',
      policy: table('bash', 'commands', '"git log **": allow', '"rm -rf *": deny'),
    },
    {
      name: 'options with `=` and `*` inside a word',
      policy: table('bash', 'commands', '"git log --format=*": allow'),
    },
    {
      name: 'workspace-relative globs',
      policy: table('read', 'paths', '"./src/**": allow', '".env*": deny'),
    },
    { name: 'absolute deny and ask', policy: table('read', 'paths', '"/etc/**": deny', '"/tmp/**": ask') },
    { name: 'the root folder', policy: table('list', 'paths', '".": allow', '"/": deny') },
    {
      // The most specific pattern wins, so a narrower allow inside a general deny decides what it matches.
      name: 'a more specific pattern inside a general one',
      policy: table('bash', 'commands', '"git **": deny', '"git log **": allow', '"git log -5": deny'),
    },
    {
      name: 'a general pattern written after a narrower one of the same decision and specificity',
      policy: table('bash', 'commands', '"ls *": allow', '"ls **": allow'),
    },
    {
      // An allow never shadows a deny: the deny also fires on words whose value is not known (`git $X`).
      name: 'an allow covering a deny of the same specificity',
      policy: table('bash', 'commands', '"git *": deny', '"git **": allow'),
    },
    {
      name: 'overlapping patterns, neither covering the other',
      policy: table(
        'read',
        'paths',
        '"src/*.ts": allow',
        '"src/?.ts": deny',
        '"c/[ab]": deny',
        '"c/*": deny',
      ),
    },
  ],
  invalid: [
    {
      name: 'a command pattern of blanks only',
      policy: table('bash', 'commands', '"  ": allow'),
      errors: [
        {
          messageId: 'invalid',
          line: 5,
          column: 7,
          message: 'pattern `  ` matches nothing: empty command pattern',
        },
      ],
    },
    {
      name: 'a pipeline in one pattern',
      policy: table('bash', 'commands', '"git log | head": allow'),
      errors: [
        {
          messageId: 'shellSyntax',
          line: 5,
          column: 7,
          message:
            'command pattern `git log | head` contains `|`, which a word holds only when quoted: scripts are split into simple commands and dequoted before matching',
        },
      ],
    },
    {
      name: 'quotes and expansions',
      policy: table('bash', 'commands', '"echo \\"hi\\"": allow', '"cat $HOME/x": deny', '"ls; rm": deny'),
      errors: [
        { messageId: 'shellSyntax', line: 5, column: 7 },
        { messageId: 'shellSyntax', line: 6, column: 7 },
        { messageId: 'shellSyntax', line: 7, column: 7 },
      ],
    },
    {
      name: 'a parent segment',
      policy: table('read', 'paths', '"../secrets/**": deny', '"src/./x": allow'),
      errors: [
        {
          messageId: 'dotSegment',
          line: 5,
          column: 7,
          message:
            'path pattern `../secrets/**` has a `..` segment, and paths are normalised before matching, so it never matches',
        },
        { messageId: 'dotSegment', line: 6, column: 7 },
      ],
    },
    {
      name: 'a final slash',
      policy: table('read', 'paths', '"src/": deny'),
      errors: [{ messageId: 'trailingSlash', line: 5, column: 7 }],
    },
    {
      name: 'a pattern a more restrictive one of the same specificity covers',
      policy: table('bash', 'commands', '"git *": allow', '"git **": deny'),
      errors: [
        {
          messageId: 'shadowed',
          line: 5,
          column: 7,
          message:
            'pattern `git *: allow` never decides: `git **: deny` matches every command it matches and wins, being as specific and more restrictive',
        },
      ],
    },
    {
      name: 'a pattern an earlier one of the same decision covers',
      policy: table(
        'bash',
        'commands',
        '"ls **": allow',
        '"ls ** **": allow',
        '"make *": ask',
        '"make  *": ask',
      ),
      errors: [
        {
          messageId: 'shadowed',
          line: 6,
          column: 7,
          message:
            'pattern `ls ** **: allow` never decides: `ls **: allow` matches every command it matches and wins, being as specific, deciding the same, and written first',
        },
        // The same words, spelt with two spaces.
        { messageId: 'shadowed', line: 8, column: 7 },
      ],
    },
    {
      name: 'path patterns covered by a brace alternative, a `*`, a `**` segment',
      policy: table(
        'read',
        'paths',
        '"{src,test}/**": deny',
        '"src/**": deny',
        '"a*": allow',
        '"a?": allow',
        '"b/**": ask',
        '"b/*": allow',
        '"/etc/**": deny',
        '"/etc/*": deny',
      ),
      errors: [
        {
          messageId: 'shadowed',
          line: 6,
          column: 7,
          message:
            'pattern `src/**: deny` never decides: `{src,test}/**: deny` matches every path it matches and wins, being as specific, deciding the same, and written first',
        },
        { messageId: 'shadowed', line: 8, column: 7 },
        { messageId: 'shadowed', line: 10, column: 7 },
        { messageId: 'shadowed', line: 12, column: 7 },
      ],
    },
    {
      name: 'an absolute allow, in a brace alternative',
      policy: table('read', 'paths', '"{src/**,/etc/**}": allow'),
      errors: [{ messageId: 'absoluteAllow', line: 5, column: 7 }],
    },
  ],
});

// The claims the messages make, checked against the decision itself.
describe('unmatchable-pattern claims', () => {
  const decide = (text: string, name: string, args: Record<string, string>) =>
    authorize(compilePolicies(loadPolicyText(text, 'p.yaml').documents), 'review', { name, arguments: args });

  it('a `..` deny does not fire on the path it spells, a final-slash deny not on the folder', () => {
    const text = [
      'mode: review',
      'tools:',
      '  read:',
      '    decision: allow',
      '    paths:',
      '      "../secrets/**": deny',
      '      "src/": deny',
      '',
    ].join('\n');
    expect(decide(text, 'read', { path: 'src' }).decision).toBe('allow');
    expect(decide(text, 'read', { path: 'src/' }).decision).toBe('allow');
    expect(decide(text, 'read', { path: '../secrets/x' }).pattern).toBeUndefined();
  });

  it('a shadowed pattern decides none of the calls it matches; the pattern inside a general deny does', () => {
    const text = [
      'mode: review',
      'tools:',
      '  bash:',
      '    decision: ask',
      '    commands:',
      '      "git *": allow',
      '      "git **": deny',
      '      "git log **": allow',
      '  read:',
      '    decision: ask',
      '    paths:',
      '      "b/**": ask',
      '      "b/*": allow',
      '',
    ].join('\n');
    for (const command of ['git x', 'git status', 'git -C']) {
      const verdict = decide(text, 'bash', { command });
      expect(verdict.decision, command).toBe('deny');
      expect(verdict.pattern?.selector, command).toBe('git **');
    }
    expect(decide(text, 'bash', { command: 'git log -5' }).pattern?.selector).toBe('git log **');
    for (const path of ['b/x', 'b/.env', 'b/x.ts']) {
      const verdict = decide(text, 'read', { path });
      expect(verdict.decision, path).toBe('ask');
      expect(verdict.pattern?.selector, path).toBe('b/**');
    }
  });

  it('a pipeline pattern allows neither the pipeline nor its first command', () => {
    const text = table('bash', 'commands', '"git log | head": allow').replace(
      '  bash:\n',
      '  bash:\n    decision: deny\n',
    );
    expect(decide(text, 'bash', { command: 'git log | head' }).decision).toBe('deny');
  });
});
