/**
 * The plain-script shortcut (`shell/plain.ts`): a script of plain words and `|`, `&&`, `||`, `;`, newlines is read
 * without the parser. Held to the parser's reading: on random scripts built from plain words, reserved words,
 * assignments, wrappers, operators and characters that are not plain, the analysis with the shortcut equals the
 * analysis by the parser (commands, words, spans, pipes, reasons), and the shortcut declines what it cannot read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractCommands, extractCommandsByParser } from '../../src/compile/shell/extract.js';
import { scanPlainScript } from '../../src/compile/shell/plain.js';

/** Words that meet every check after a command is recorded, and words the parser reads otherwise. */
const WORDS = [
  'git',
  'log',
  '-n',
  '5',
  '--oneline',
  '-la',
  'src/*.ts',
  'a?',
  '/bin/rm',
  'rm',
  '-rf',
  'x=1',
  'x=',
  'a+=b',
  '1a=2',
  '=x',
  'PATH=/tmp',
  '--output=f',
  'python3',
  'bash',
  'sh',
  '-c',
  '-',
  '--',
  'sudo',
  'env',
  '-i',
  'xargs',
  'timeout',
  '5s',
  'nice',
  'eval',
  'declare',
  'export',
  'set',
  'let',
  'test',
  '[',
  '-v',
  'printf',
  'alias',
  'wait',
  'source',
  '.',
  'command',
  'exec',
  'find',
  '-exec',
  // The shell's reserved words, written out here (not read from the module under test).
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'for',
  'while',
  'until',
  'in',
  'case',
  'esac',
  'function',
  'select',
  'coproc',
  'time',
  'Time',
  'done2',
  'in.txt',
];
/** Separators and operators, those the shortcut reads and those it leaves to the parser. */
const SEPARATORS = [
  ' ',
  ' ',
  ' ',
  '\t',
  '  ',
  '\n',
  '|',
  ' | ',
  '||',
  ' && ',
  '&&',
  ';',
  '; ',
  ' ;',
  '&',
  '|&',
  ';;',
  ';&',
  '\n\n',
];
/** Characters that are not plain: a script with one is never read by the shortcut. */
const OTHERS = [
  "'",
  '"',
  '$x',
  '`',
  '>',
  '<',
  '#',
  '\\',
  '(',
  ')',
  '{',
  '}',
  '!',
  '~',
  '[',
  ']',
  '\r',
  'é',
  '\v',
  '\f',
];

const token = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 4, arbitrary: fc.constantFrom(...SEPARATORS) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHERS) },
);
const script = fc.array(token, { minLength: 0, maxLength: 24 }).map((t) => t.join(''));

describe('scanPlainScript', () => {
  it('reads every script as the parser does, or leaves it to the parser', () => {
    let plain = 0;
    fc.assert(
      fc.property(script, (s) => {
        if (scanPlainScript(s) !== undefined) plain++;
        expect(extractCommands(s)).toEqual(extractCommandsByParser(s));
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches the shortcut often, or the property says little about it.
    expect(plain).toBeGreaterThan(2000);
  });

  it('reads the words of each command and whether a pipe feeds it', () => {
    expect(scanPlainScript('git log -n 5 | grep -v x && ls;wc -l src/*.ts\n\ncat a ||\n  b;')).toEqual({
      commands: [
        [0, 3, 4, 7, 8, 10, 11, 12],
        [15, 19, 20, 22, 23, 24],
        [28, 30],
        [31, 33, 34, 36, 37, 45],
        [47, 50, 51, 52],
        [58, 59],
      ],
      piped: [false, true, false, false, false, false],
    });
    expect(scanPlainScript('a |\n\n b')?.piped).toEqual([false, true]);
  });

  it('declines what it cannot read as certainly as the parser', () => {
    for (const s of [
      '',
      '  \n',
      'a &',
      'a & b',
      'a |& b',
      'a;;',
      'a ;& b',
      '; a',
      'a; ; b',
      'a\n; b',
      '| a',
      'a |',
      'a &&',
      'a ||\n',
      'a ||| b',
      'x=1 a',
      'a=',
      'time ls',
      'ls | time ls',
      'if x',
      'a; done',
      'coproc x',
      'function f',
      "echo 'a'",
      'echo $x',
      'echo a > f',
      'echo ~',
      'echo a # c',
      'echo a\r',
      'echo é',
      'echo {a,b}',
      '! a',
    ])
      expect(scanPlainScript(s), JSON.stringify(s)).toBeUndefined();
    for (const s of [
      'a',
      'a;',
      'a\n',
      '\n\na',
      'a\n\nb',
      'echo time if',
      'a && b || c | d; e',
      'ls -la src/*.ts',
    ])
      expect(scanPlainScript(s), JSON.stringify(s)).toBeDefined();
  });

  it('still reports what the checks after recording report, for a plain script', () => {
    const kinds = (s: string) => extractCommands(s).unanalysable.map((r) => r.kind);
    expect(scanPlainScript('ls | python3 -')).toBeDefined();
    expect(kinds('ls | python3 -')).toEqual(['heredoc-interpreter']);
    expect(kinds('python3 - | ls')).toEqual([]);
    expect(kinds('declare x=1')).toEqual(['assignment']);
    expect(kinds('env a=b ls')).toEqual(['assignment']);
    expect(kinds('set -e; ls')).toEqual(['shell-state']);
    expect(kinds('ls x*')).toEqual([]);
    expect(extractCommands('sudo bash -c ls').commands.map((c) => [c.name, c.via])).toEqual([
      ['sudo', []],
      ['bash', ['sudo']],
      ['ls', ['sudo', 'bash']],
    ]);
  });
});
