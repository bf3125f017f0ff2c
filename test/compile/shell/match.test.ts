import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commandPatternSpecificity,
  extractCommands,
  matchCommand,
  parseCommandPattern,
  splitShortOptions,
  wordMatches,
  type ShellWord,
} from '../../../src/compile/shell/index.js';

const known = (value: string): ShellWord => ({ text: value, value, known: true });
const unknown = (text: string): ShellWord => ({ text, value: text, known: false });
const words = (s: string): ShellWord[] =>
  s.split(' ').map((w) => (w.startsWith('$') ? unknown(w) : known(w)));
const allow = { forAllow: true };
const deny = { forAllow: false };

describe('wordMatches', () => {
  it('matches a word with `*`s as the regular expression it stands for, overlapping parts included', () => {
    const reference = (pattern: string, value: string): boolean =>
      new RegExp(
        `^${pattern
          .split(/\*+/)
          .map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
          .join('.*')}$`,
        's',
      ).test(value);
    const text = (chars: string[]) =>
      fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text(['a', 'b', '*', '.', '\n']), text(['a', 'b', '.', '\n', '*']), (pattern, value) => {
        const [word] = parseCommandPattern(`x${pattern}`).words.slice(0, 1);
        if (word?.kind !== 'word') return;
        expect(wordMatches(word, `x${value}`)).toBe(reference(`x${pattern}`, `x${value}`));
      }),
      { numRuns: 2000 },
    );
    const [aa] = parseCommandPattern('aa*aa').words;
    expect(aa?.kind === 'word' && wordMatches(aa, 'aaa')).toBe(false);
    expect(aa?.kind === 'word' && wordMatches(aa, 'aaaa')).toBe(true);
  });
});

describe('matchCommand', () => {
  it.each([
    ['git log **', 'git log', true],
    ['git log **', 'git log -5 --oneline', true],
    ['git log **', 'git status', false],
    ['git status', 'git status', true],
    ['git status', 'git status -s', false],
    ['git status', 'git', false],
    ['git * **', 'git log -5', true],
    ['git *', 'git', false],
    ['git --output=*', 'git --output=x', true],
    ['git --output=*', 'git --output', false],
    ['git **', 'git', true],
    ['** push **', 'git -C . push origin', true],
    ['**', 'rm -rf /', true],
    ['rm -*f*', 'rm -rf', true],
    ['a.b', 'aXb', false],
  ])('%j matches %j: %s', (pattern, command, expected) => {
    expect(matchCommand(pattern, words(command), allow)).toBe(expected);
    expect(matchCommand(pattern, words(command), deny)).toBe(expected);
  });

  it('never matches an unknown word for allow, not even with `**` or `*`', () => {
    for (const p of ['git log **', 'git log *', 'git **', '**'])
      expect(matchCommand(p, words('git log $X'), allow), p).toBe(false);
    expect(matchCommand('* log', words('$X log'), allow)).toBe(false);
  });

  it('assumes an unknown word matches any pattern word for deny and ask', () => {
    expect(matchCommand('git push **', words('git $X'), deny)).toBe(true);
    expect(matchCommand('find . -delete', words('find . $X'), deny)).toBe(true);
    expect(matchCommand('rm **', words('$X -rf'), deny)).toBe(true);
    // One word for one word: an exact pattern keeps its count.
    expect(matchCommand('git push origin', words('git $X'), deny)).toBe(false);
  });

  it('matches a name with a slash by its basename for deny, and only by its exact path for allow', () => {
    const cmd = extractCommands('/bin/rm -rf x').commands[0]!;
    expect(cmd.name).toBe('rm');
    expect(cmd.path).toBe('/bin/rm');
    expect(matchCommand('rm **', cmd, deny)).toBe(true);
    expect(matchCommand('/bin/rm **', cmd, deny)).toBe(true);
    expect(matchCommand('rm **', cmd, allow)).toBe(false);
    expect(matchCommand('*rm **', cmd, allow)).toBe(false);
    expect(matchCommand('/bin/rm **', cmd, allow)).toBe(true);
    expect(matchCommand('/usr/bin/rm **', cmd, deny)).toBe(false);
  });

  it('takes a command from the analyser as is, dequoted', () => {
    const [cmd] = extractCommands(`git  'log'  "-5"`).commands;
    expect(matchCommand('git log -5', cmd!, allow)).toBe(true);
  });

  it('matches nothing with an empty pattern, and an empty command with nothing', () => {
    expect(matchCommand('', words('ls'), deny)).toBe(false);
    expect(matchCommand('ls', [], deny)).toBe(false);
    expect(matchCommand(parseCommandPattern('  '), [], deny)).toBe(true);
  });

  it('has a pattern match for deny whenever it matches for allow (allow is the narrower)', () => {
    const word = fc.oneof(fc.constantFrom('git', 'log', '-5', 'x', 'a*', '*'), fc.constant('**'));
    const cmdWord = fc.oneof(
      fc.constantFrom('git', 'log', '-5', 'x', 'ab').map(known),
      fc.constant(unknown('$X')),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.array(cmdWord, { minLength: 1, maxLength: 6 }),
        (p, c) => {
          const pattern = p.join(' ');
          if (matchCommand(pattern, c, allow)) expect(matchCommand(pattern, c, deny)).toBe(true);
          // A command whose words are all known matches the same way for both.
          if (c.every((w) => w.known))
            expect(matchCommand(pattern, c, allow)).toBe(matchCommand(pattern, c, deny));
        },
      ),
    );
  });

  it('agrees with a naive recursive matcher on known commands', () => {
    // The reference: `**` tries every split; `*` inside a word becomes `.*` in a regular expression.
    const naive = (p: string[], c: string[]): boolean => {
      if (p.length === 0) return c.length === 0;
      const [head, ...tail] = p;
      if (head === '**') return c.some((_, k) => naive(tail, c.slice(k))) || naive(tail, []);
      if (c.length === 0) return false;
      const re = new RegExp(`^${head!.split('*').join('.*')}$`);
      return re.test(c[0]!) && naive(tail, c.slice(1));
    };
    const word = fc.constantFrom('a', 'b', 'ab', 'a*', '*b', '*', '**');
    const cmdWord = fc.constantFrom('a', 'b', 'ab', 'ba', 'aab');
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.array(cmdWord, { minLength: 1, maxLength: 6 }),
        (p, c) => {
          expect(matchCommand(p.join(' '), c.map(known), allow)).toBe(naive(p, c));
        },
      ),
    );
  });

  it('agrees with the plain word-by-word DP on known, unknown and slashed words, for allow and deny', () => {
    // The reference: the DP over every pattern word and command word, with no shortcut for common shapes.
    const one = (pw: string, w: ShellWord, j: number, forAllow: boolean): boolean => {
      const any = pw === '**';
      const re = new RegExp(
        `^${pw
          .split(/\*+/)
          .map((x) => x.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
          .join('.*')}$`,
        's',
      );
      const lit = (v: string) => (pw.includes('*') ? re.test(v) : pw === v);
      if (any) return !forAllow || w.known;
      if (!w.known) return !forAllow;
      if (j === 0 && w.value.includes('/'))
        return forAllow ? pw === w.value : lit(w.value) || lit(w.value.slice(w.value.lastIndexOf('/') + 1));
      return lit(w.value);
    };
    const reference = (p: string[], c: ShellWord[], forAllow: boolean): boolean => {
      if (p.length === 0 || c.length === 0) return p.length === 0 && c.length === 0;
      let reach = c.map(() => false).concat(false);
      reach[0] = true;
      for (const pw of p) {
        const next = reach.map(() => false);
        for (let j = 0; j <= c.length; j++)
          next[j] =
            pw === '**'
              ? reach[j]! || (j > 0 && next[j - 1]! && one(pw, c[j - 1]!, j - 1, forAllow))
              : j > 0 && reach[j - 1]! && one(pw, c[j - 1]!, j - 1, forAllow);
        reach = next;
      }
      return reach[c.length]!;
    };
    const word = fc.constantFrom('a', 'b', 'ab', 'a*', '*b', '*', '**', '/x/a', '*/a');
    const cmdWord = fc.oneof(
      fc.constantFrom('a', 'b', 'ab', 'ba', 'aab', '/x/a', 'y/b').map(known),
      fc.constantFrom('$A', 'a').map(unknown),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.array(cmdWord, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (p, c, forAllow) => {
          expect(matchCommand(p.join(' '), c, { forAllow })).toBe(reference(p, c, forAllow));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matches in bounded time on a pathological pattern', () => {
    const pattern = Array.from({ length: 200 }, () => '** a*').join(' ') + ' b';
    const cmd = Array.from({ length: 2000 }, () => known('aaaa'));
    expect(matchCommand(pattern, [known('x'), ...cmd], deny)).toBe(false);
  });
});

describe('commandPatternSpecificity', () => {
  it('counts literal characters', () => {
    expect(parseCommandPattern('git log **').specificity).toBe(6);
    expect(parseCommandPattern('git l*g').specificity).toBe(5);
    expect(commandPatternSpecificity(parseCommandPattern('**'))).toBe(0);
    expect(parseCommandPattern('git log').specificity).toBeGreaterThan(
      parseCommandPattern('git **').specificity,
    );
  });
});

describe('splitShortOptions', () => {
  const values = (s: string) => splitShortOptions(words(s)).map((w) => w.value);

  it('splits bundled short options so each one can be matched', () => {
    expect(values('sort -uo out')).toEqual(['sort', '-u', '-o', 'out']);
    expect(matchCommand('sort ** -o **', splitShortOptions(words('sort -uo out')), deny)).toBe(true);
  });

  it('leaves the name, long options, a lone dash, `--` and single options alone', () => {
    expect(values('-ab --long - -x --')).toEqual(['-ab', '--long', '-', '-x', '--']);
  });

  it('splits attached values whatever their characters, so `-uo=x` shows its `-o`', () => {
    expect(values('sort -uo=x -t,')).toEqual(['sort', '-u', '-o', '-=', '-x', '-t', '-,']);
    expect(matchCommand('sort ** -o* **', splitShortOptions(words('sort -uo=x')), deny)).toBe(true);
  });

  it('splits after `--` too: a `--` may be the value of the option before it', () => {
    // `sort --random-source -- -uo=x in` writes `=x`: the `--` is the random source, not the end of options.
    expect(values('sort --random-source -- -uo=x in')).toEqual([
      'sort',
      '--random-source',
      '--',
      '-u',
      '-o',
      '-=',
      '-x',
      'in',
    ]);
  });

  it('leaves unknown words alone', () => {
    expect(splitShortOptions([known('ls'), unknown('-$X')])[1]!.known).toBe(false);
  });
});
