/**
 * The decision path's shortcuts, each held to the plain definition it stands for: the pattern pick (an index by
 * first word, lists in winning order, the first match wins) against a scan of every pattern, the analyser's
 * skip of the name checks against every check it skips, and its reading of plain and glob words against the
 * parser's word parts.
 */
import fc from 'fast-check';
import { parse as parseShell } from 'unbash';
import { describe, expect, it } from 'vitest';
import { commandSpecificity, judgeScript, pick, pickByScan } from '../../src/compile/command-table.js';
import { ASSIGNING, needsNameChecks, SHELL_STATE } from '../../src/compile/shell/extract.js';
import { extractCommands, type ShellWord } from '../../src/compile/shell/index.js';
import {
  INTERPRETER_NAMES,
  isInterpreter,
  readWrapper,
  WRAPPER_NAMES,
} from '../../src/compile/shell/wrappers.js';
import type { ArgumentPattern, Decision } from '../../src/compile/types.js';
import { GLOB_WORD, PLAIN_WORD, toShellWord, wordShape } from '../../src/compile/shell/words.js';

const known = (value: string): ShellWord => ({ text: value, value, known: true });
const unknown = (text: string): ShellWord => ({ text, value: text, known: false });

/** A table's pattern as the compiler makes it, with only what matching reads filled in for real. */
function pattern(source: string, decision: Decision, order: number, error?: string): ArgumentPattern {
  return {
    source,
    decision,
    specificity: commandSpecificity(source),
    order,
    path: ['tools', 'bash', 'commands', source],
    ref: { selector: 'bash', file: null, line: null, column: null },
    ...(error === undefined ? {} : { error }),
  };
}

describe('pick', () => {
  // Pattern words and command words from one small alphabet, so that names, globs, paths and bundles meet often.
  const patternWord = fc.constantFrom(
    'git',
    'ls',
    'log',
    'x',
    '-a',
    '-b',
    '-ab',
    '-o',
    '*',
    'g*',
    '*s',
    '**',
    '/usr/bin/git',
    'bin/ls',
  );
  const commandWord = fc.oneof(
    fc
      .constantFrom(
        'git',
        'ls',
        'log',
        'x',
        '-a',
        '-b',
        '-ab',
        '-ba',
        '-o',
        '-ao',
        '/usr/bin/git',
        'bin/ls',
        'gs',
      )
      .map(known),
    fc.constantFrom('$X', 'g*', 'git').map(unknown),
  );
  const table = fc
    .array(
      fc.record({
        words: fc.array(patternWord, { minLength: 0, maxLength: 4 }),
        decision: fc.constantFrom<Decision>('allow', 'ask', 'deny'),
        broken: fc.boolean(),
      }),
      { minLength: 0, maxLength: 8 },
    )
    .map((specs) =>
      specs.map((s, i) =>
        pattern(s.words.join(' '), s.decision, i, s.broken && i % 3 === 0 ? 'broken' : undefined),
      ),
    );
  const command = fc.array(commandWord, { minLength: 1, maxLength: 5 });

  it('picks what a scan of every pattern in written order picks (index, winning order, first match)', () => {
    fc.assert(
      fc.property(table, fc.array(command, { minLength: 1, maxLength: 6 }), (patterns, commands) => {
        // Several commands against one table: its index and merged candidate lists are built once and reused.
        for (const words of commands) expect(pick(patterns, words)).toBe(pickByScan(patterns, words));
      }),
      { numRuns: 3000 },
    );
  });

  it('judges each command of a script by the pattern the scan picks, names with and without a path', () => {
    const patterns = [
      pattern('git **', 'allow', 0),
      pattern('git push **', 'deny', 1),
      pattern('/usr/bin/git **', 'allow', 2),
      pattern('ls **', 'allow', 3),
      pattern('*s -l*', 'ask', 4),
      pattern('** x', 'deny', 5),
    ];
    const picked: number[] = [];
    const callbacks = {
      verdict: (subject: string, index: number) => (picked.push(index), { subject, abstains: true }),
      unanalysable: (subject: string) => ({ subject, abstains: true }),
    };
    const script =
      'git log; /usr/bin/git push; /opt/git push x; ./git status; bin/ls -la; ls -l x; env git push; $X push; sudo /bin/ls x; rs -l';
    judgeScript(script, patterns, callbacks);
    const expected = extractCommands(script).commands.map((c) => pickByScan(patterns, c.words));
    expect(picked).toEqual(expected);
    expect(new Set(expected).size).toBeGreaterThan(3);
  });

  it('breaks ties as the scan does: the most specific, then the most restrictive, then the first written', () => {
    const patterns = [
      pattern('git **', 'allow', 0),
      pattern('git *', 'ask', 1),
      pattern('git log', 'allow', 2),
      pattern('git log', 'deny', 3),
      pattern('git log', 'deny', 4),
      pattern('** log', 'deny', 5),
    ];
    const cases: [string, number][] = [
      ['git log', 3],
      ['git show', 1],
      ['git show x', 0],
      ['ls log', 5],
      ['ls', -1],
    ];
    for (const [text, expected] of cases) {
      const words = text.split(' ').map(known);
      expect(pickByScan(patterns, words)).toBe(expected);
      expect(pick(patterns, words)).toBe(expected);
    }
  });
});

describe('needsNameChecks', () => {
  /** Everything the analyser does with a command after recording it reacts only to these names. */
  const checked = (name: string, words: readonly ShellWord[]): string[] => {
    const out: string[] = [];
    if (isInterpreter(name)) out.push('interpreter');
    if (SHELL_STATE.has(name)) out.push('shell state');
    if (ASSIGNING.has(name)) out.push('assigning');
    if (['alias', 'printf', 'test', '[', 'wait', 'let'].includes(name)) out.push('operands');
    if (readWrapper(name, words) !== undefined) out.push('wrapper');
    return out;
  };
  const listed = [
    ...WRAPPER_NAMES,
    ...INTERPRETER_NAMES,
    ...SHELL_STATE,
    ...ASSIGNING,
    'alias',
    'printf',
    'test',
    '[',
    'wait',
    'let',
    'env',
    'sudo',
    'xargs',
    'find',
    'timeout',
    'nohup',
    'exec',
    'command',
    'builtin',
    'eval',
    'source',
    '.',
    'strace',
    'git',
    'ls',
    'python3',
    'python3.12',
    'perl5.36',
    'lua5.4',
    'sqlite3',
    'node18',
  ];
  const name = fc.oneof(
    fc.constantFrom(...listed),
    fc.tuple(fc.constantFrom(...listed), fc.stringMatching(/^[0-9.a-z-]{0,4}$/)).map(([n, s]) => n + s),
    fc.tuple(fc.stringMatching(/^[a-z]{0,3}$/), fc.constantFrom(...listed)).map(([p, n]) => p + n),
    fc.string({ minLength: 1, maxLength: 8 }),
  );
  const argument = fc.constantFrom('-c', '-v', 'x', '--', 'ls', '$(ls)', '-i', 'a=b', '-vx');

  it('is true for every name any check after recording reacts to, whatever the words', () => {
    fc.assert(
      fc.property(name, fc.array(argument, { maxLength: 4 }), (n, args) => {
        const words = [known(n), ...args.map((a) => (a.startsWith('$') ? unknown(a) : known(a)))];
        if (!needsNameChecks(n)) expect(checked(n, words)).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps every name the checks list, and versioned interpreters', () => {
    for (const n of listed) if (checked(n, [known(n)]).length > 0) expect(needsNameChecks(n)).toBe(true);
    for (const n of ['python3.12', 'python.', 'ruby2', 'tclsh8.6', 'php8'])
      expect(needsNameChecks(n)).toBe(true);
  });

  it('still reports what a skipped command would have needed reported, through its path and a wrapper', () => {
    // Named by a path, the basename is what is checked; the skip looks at the same basename.
    expect(extractCommands('/usr/bin/python3.12 <<< x').unanalysable.map((r) => r.kind)).toEqual([
      'heredoc-interpreter',
    ]);
    expect(extractCommands('ls | ./node').unanalysable.map((r) => r.kind)).toEqual(['heredoc-interpreter']);
    expect(extractCommands('env -i bin/declare x=1').unanalysable.map((r) => r.kind)).toEqual(['assignment']);
    expect(extractCommands('git log | grep x && ls -la').unanalysable).toEqual([]);
  });
});

describe('wordShape', () => {
  it('reads a plain word or a glob of plain characters as the parser would, with nothing nested in it', () => {
    // The analyser takes such a word's value as its text (known only without `*` or `?`) and skips its parts.
    const alphabet = [...'aZ09_.-/,:=+%@^', '*', '?', '*', ...'~[]{}$`\'"\\!#()'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 8 }), (chars) => {
        const text = chars.join('');
        const shape = wordShape(text);
        if (shape === 0) return;
        const cmd = parseShell(`echo ${text}`).commands[0]?.command;
        expect(cmd?.type).toBe('Command');
        if (cmd?.type !== 'Command') return;
        expect(cmd.suffix).toHaveLength(1);
        const word = cmd.suffix[0]!;
        expect(word.type).toBe('Word');
        if (word.type !== 'Word') return;
        expect(word.text).toBe(text);
        expect(word.value).toBe(text);
        // Nothing nested: literal and glob parts only, and a glob part makes the word not known.
        const types = new Set((word.parts ?? []).map((p) => p.type));
        expect([...types].every((t) => t === 'Literal' || t === 'Glob')).toBe(true);
        expect(types.has('Glob')).toBe(shape === GLOB_WORD);
        expect(toShellWord(word)).toEqual({ text, value: text, known: shape === PLAIN_WORD });
      }),
      { numRuns: 5000 },
    );
    expect(wordShape('src/*.ts')).toBe(GLOB_WORD);
    expect(wordShape('a?')).toBe(GLOB_WORD);
    expect(wordShape('src/a.ts')).toBe(PLAIN_WORD);
    for (const w of ['', '[ab]', '*(x)', '~/*', '$x*', "'*'", '\\*']) expect(wordShape(w), w).toBe(0);
  });

  it('leaves a glob not known wherever the analyser reads words', () => {
    const a = extractCommands('ls src/*.ts > out?; ca? x');
    expect(a.commands.map((c) => c.words.map((w) => w.known))).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(a.unanalysable.map((r) => r.kind)).toEqual(['redirect', 'expansion']);
  });
});
