/**
 * Judging commands against a table's patterns (`command-table.ts`), and what the analyser reports by a command's
 * name and words: the winning pattern is the most specific match, then the most restrictive, then the first
 * written; the checks by name reach commands named by a path, run by a wrapper or in a plain pipeline.
 */
import fc from 'fast-check';
import { parse as parseShell } from 'unbash';
import { describe, expect, it } from 'vitest';
import { judgeScript, pick, type CommandRule } from '../../../src/compile/decide/command-table.js';
import { decideCall } from '../../../src/compile/decide/call.js';
import { extractCommands, parseCommandPattern, type ShellWord } from '../../../src/compile/shell/index.js';
import { policy } from '../helpers.js';
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

describe('deny and ask past global options', () => {
  const bash = (p: ReturnType<typeof policy>, command: string) =>
    decideCall(p, { name: 'bash', arguments: { command } });
  const ops = policy(
    'ops',
    'mode: ops\ntools:\n  bash: { decision: allow, commands: { "git push **": deny } }\n',
  );

  it('denies the four bypasses of `git push **` under an allow base', () => {
    for (const command of [
      'git -C . push origin main',
      'git --no-pager push',
      'git -c x=y push',
      'npx git push',
      '/usr/bin/git --git-dir=.git --work-tree . push',
      'sudo git -P push -f',
      'pnpm dlx git push',
      // Tries to break it: combinations, expansions, wrappers, runners with options of their own.
      'npx -y -- git -c a=b push',
      'echo push | xargs git -C .',
      "eval 'git --no-pager push'",
      'GIT_DIR=x git -C . push',
      'git -C. push',
      'git $(echo --no-pager) push',
      '"g"it --bare push',
      'command git --namespace=x push',
    ]) {
      const d = bash(ops, command);
      expect(d.decision, command).toBe('deny');
      expect(d.pattern?.selector, command).toBe('git push **');
    }
    expect(bash(ops, 'git -C . status').decision).toBe('allow');
    expect(bash(ops, 'git --help push').decision).toBe('allow');
  });

  it('assumes an unknown global option matches every deny and ask of its program', () => {
    const d = bash(ops, 'git --frob status');
    expect(d).toMatchObject({ decision: 'deny', pattern: { selector: 'git push **' } });
    expect(d.note).toContain('`--frob`');
    expect(bash(ops, 'git -C . $X').decision).toBe('deny');
    // The most restrictive of them holds, and other programs' patterns stay out of it.
    const two = policy(
      'ops',
      'mode: ops\ntools:\n  bash: { decision: allow, commands: { "git push **": ask, "git reset **": deny, "rm **": deny } }\n',
    );
    expect(bash(two, 'git --frob status')).toMatchObject({
      decision: 'deny',
      pattern: { selector: 'git reset **' },
    });
    expect(bash(two, 'ls --frob')).toMatchObject({ decision: 'allow' });
  });

  it('never widens an allow: allows match the words as written, skipping only adds denies and asks', () => {
    const plan = policy(
      'p',
      'mode: p\ntools:\n  bash: { decision: deny, commands: { "git log **": allow, "git -c* **": deny } }\n',
    );
    expect(bash(plan, 'git log -5').decision).toBe('allow');
    expect(bash(plan, 'git -c core.pager=x log').decision).toBe('deny');
    expect(bash(plan, 'git --no-pager log').decision).toBe('deny');
    // A deny written for the options still holds over an ask past them.
    const both = policy(
      'p',
      'mode: p\ntools:\n  bash: { decision: allow, commands: { "git -C **": deny, "git push **": ask } }\n',
    );
    expect(bash(both, 'git -C . push').decision).toBe('deny');
    // Past the options, a more specific allow keeps a deny from firing; it allows nothing by itself.
    const dry = policy(
      'p',
      'mode: p\ntools:\n  bash: { decision: deny, commands: { "git push **": deny, "git push --dry-run **": allow } }\n',
    );
    expect(bash(dry, 'git push --dry-run').decision).toBe('allow');
    expect(bash(dry, 'git -c x=y push --dry-run').decision).toBe('deny');
  });

  it('keeps an ask past the options while the rest of the document decides too', () => {
    const p = policy('p', 'mode: p\ntools:\n  bash: { commands: { "git push **": ask } }\ndefault: allow\n');
    expect(bash(p, 'git -C . push').decision).toBe('ask');
    const q = policy('p', 'mode: p\ntools:\n  bash: { commands: { "git push **": ask } }\ndefault: deny\n');
    expect(bash(q, 'git -C . push').decision).toBe('deny');
  });

  it('never turns a non-allow into allow, and is never less restrictive than the words as written', () => {
    const sources = [
      'git **',
      'git push **',
      'git log **',
      'git -C * **',
      'git -c* **',
      'git --no-pager log **',
      '** push **',
      'git * push',
      'git push',
      'g* p* **',
    ];
    const decisions = ['allow', 'ask', 'deny'] as const;
    const options = [
      '-C',
      '.',
      '-c',
      'x=y',
      '--no-pager',
      '-P',
      '--git-dir=.git',
      '--bare',
      '--frob',
      '--help',
      '-v',
    ];
    const tails = ['push', 'log', 'status', 'push -f', 'log -5', '--dry-run', 'x'];
    const rank = { allow: 0, ask: 1, deny: 2 } as const;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...sources), fc.constantFrom(...decisions)), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.constantFrom(undefined, ...decisions),
        fc.array(fc.constantFrom(...options), { maxLength: 5 }),
        fc.constantFrom(...tails),
        (table, base, opts, tail) => {
          const patterns = table.map(([s, d], i) => pattern(s, d, i));
          const command = ['git', ...opts, tail].join(' ');
          const words = command.split(' ').map(known);
          const of = (index: number) =>
            index < 0
              ? { decision: base, abstains: base === undefined }
              : { decision: patterns[index]!.decision, abstains: false };
          const callbacks = {
            verdict: (subject: string, index: number) => ({ subject, ...of(index) }),
            unanalysable: (subject: string) => ({
              subject,
              decision: base === 'allow' || base === undefined ? ('ask' as const) : base,
              abstains: base === undefined,
            }),
          };
          const [v] = judgeScript(command, patterns, callbacks);
          const literal = of(pick(patterns, words));
          if (v!.decision === 'allow') expect(literal.decision, command).toBe('allow');
          if (literal.decision === undefined) {
            // An abstention stays one, or becomes a deny, or an ask that still lets the rest decide.
            if (v!.decision === 'ask') expect(v!.abstains).toBe(true);
            else if (v!.decision !== undefined) expect(v!.decision).toBe('deny');
          } else {
            expect(v!.decision).toBeDefined();
            expect(rank[v!.decision!], command).toBeGreaterThanOrEqual(rank[literal.decision]);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
