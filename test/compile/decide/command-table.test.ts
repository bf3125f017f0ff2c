/**
 * Judging commands against a table's patterns (`command-table.ts`), and what the analyser reports by a command's
 * name and words: the winning pattern is the most specific match, then the most restrictive, then the first
 * written; the checks by name reach commands named by a path, run by a wrapper or in a plain pipeline.
 */
import fc from 'fast-check';
import { parse as parseShell } from 'unbash';
import { describe, expect, it } from 'vitest';
import { judgeScript, pick, type CommandRule } from '../../../src/compile/decide/command-table.js';
import { extractCommands, parseCommandPattern, type ShellWord } from '../../../src/compile/shell/index.js';
import type { Decision } from '../../../src/compile/types.js';
import { GLOB_WORD, PLAIN_WORD, toShellWord, wordShape } from '../../../src/compile/shell/words.js';

const known = (value: string): ShellWord => ({ text: value, value, known: true });

/** A table's pattern as the compiler makes it, with only what matching reads filled in for real. */
function pattern(source: string, decision: Decision, order: number): CommandRule {
  const command = parseCommandPattern(source);
  return {
    source,
    decision,
    specificity: command.specificity,
    order,
    path: ['tools', 'bash', 'commands', source],
    ref: { selector: 'bash', file: null, line: null, column: null },
    command,
  };
}

describe('pick', () => {
  it('judges each command of a script by its winning pattern, names with and without a path', () => {
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
    judgeScript('git log; git push origin; /usr/bin/git push; ls -l x; rs -l; cat', patterns, callbacks);
    // `/usr/bin/git push`: the exact path's allow (12 literal characters) beats the basename's deny (7).
    expect(picked).toEqual([0, 1, 2, 3, 4, -1]);
  });

  it('breaks ties: the most specific, then the most restrictive, then the first written', () => {
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
    for (const [text, expected] of cases) expect(pick(patterns, text.split(' ').map(known))).toBe(expected);
  });

  it('finds an option hidden in a bundle: a deny matches either form, an allow must match both', () => {
    const patterns = [pattern('sort **', 'allow', 0), pattern('sort ** -o **', 'deny', 1)];
    expect(pick(patterns, ['sort', '-uo', 'out'].map(known))).toBe(1);
    expect(pick(patterns, ['sort', '-u', 'in'].map(known))).toBe(0);
  });
});

describe('the analyser’s checks by name', () => {
  const kinds = (s: string) => extractCommands(s).unanalysable.map((r) => r.kind);

  it('reach a command named by a path or run by a wrapper', () => {
    expect(kinds('/usr/bin/python3.12 <<< x')).toEqual(['heredoc-interpreter']);
    expect(kinds('ls | ./node')).toEqual(['heredoc-interpreter']);
    expect(kinds('env -i bin/declare x=1')).toEqual(['assignment']);
    expect(kinds('git log | grep x && ls -la')).toEqual([]);
  });

  it('reach every command of a plain pipeline or list', () => {
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
