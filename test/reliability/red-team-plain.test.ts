/**
 * Red team of the plain-script shortcut (`src/compile/shell/plain.ts`, used by `extractCommands`): a script of
 * plain words and `|`, `&&`, `||`, `;`, newlines is split into commands without the parser. Each attack is held
 * three ways: the shortcut's reading equals the parser's (`extractCommandsByParser`: commands, words, spans,
 * redirects, reasons), real `/bin/bash -x` runs no command the analysis does not report (its trace and logging
 * stubs on PATH are the ground truth), and the built-in plan decides a plain script exactly as it decides the same
 * script forced through the parser. No attack here opened a hole; they stay so a later shortcut that opens one
 * fails.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicySources, type CompiledPolicy } from '../../src/compile/index.js';
import {
  extractCommands,
  extractCommandsByParser,
  MAX_SCRIPT_LENGTH,
} from '../../src/compile/shell/extract.js';
import { scanPlainScript } from '../../src/compile/shell/plain.js';

const loaded = await loadPolicySources([]);
const plan: CompiledPolicy = compilePolicies(loaded.documents).get('plan')!;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

/** The shortcut's reading equals the parser's, in every field. */
function sameReading(script: string): void {
  expect(extractCommands(script), JSON.stringify(script)).toEqual(extractCommandsByParser(script));
}

/** Every character of the plain set, one by one. */
const PLAIN_SET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./,:=+%@^-*?';
/** Bash's reserved words (plain or not), `time` and its option, and builtins that read their words specially. */
const KEYWORDS = [
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
  '-p',
  '!',
  '{',
  '}',
  '[[',
  ']]',
  '((',
  'declare',
  'typeset',
  'local',
  'readonly',
  'export',
  'exec',
  'eval',
  'builtin',
  'command',
  'jobs',
  '-x',
  'let',
  'test',
  'wait',
  'printf',
  '-v',
  'enable',
  'hash',
  'source',
  '.',
  'trap',
  'fc',
  'mapfile',
  'bash',
  '-c',
  'sudo',
  'env',
  'xargs',
  'cd',
  'git',
  'log',
  '%1',
  '%',
  '^a^b',
  '2',
  '-',
  '--',
  '=',
  'a=b',
  'a+=b',
  '1a=2',
  'x=*',
];
/** Separators the shortcut reads, those it must refuse, and characters next to plain that are not plain. */
const SEPARATORS = [
  ' ',
  '\t',
  '\n',
  '\n\n',
  '|',
  '||',
  '&&',
  ';',
  '&',
  '|&',
  ';;',
  ';&',
  ';;&',
  '&&&',
  '|||',
  '\r',
  '\r\n',
  '\v',
  '\f',
  '\0',
  '\u00a0',
  'é',
  '\u2028',
  '\ud800',
  '#',
  '~',
  '[',
  '$',
  '\\',
];

/** A script from single plain characters, keywords and separators, so every character meets every position. */
const charScript = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PLAIN_SET) },
      { weight: 3, arbitrary: fc.constantFrom(...KEYWORDS) },
      { weight: 4, arbitrary: fc.constantFrom(' ', ' ', '\t', '\n', '|', '||', '&&', ';') },
      { weight: 1, arbitrary: fc.constantFrom(...SEPARATORS) },
    ),
    { minLength: 0, maxLength: 30 },
  )
  .map((t) => t.join(''));

describe('plain shortcut red team: the reading equals the parser’s', () => {
  it('on scripts of single plain characters, keywords and separators in every position', () => {
    let accepted = 0;
    fc.assert(
      fc.property(charScript, (s) => {
        if (scanPlainScript(s) !== undefined) accepted++;
        sameReading(s);
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches the shortcut often, or the property says little about it.
    expect(accepted).toBeGreaterThan(2000);
  });

  it('every plain character alone, first in a command, after each operator and after a newline', () => {
    for (const c of PLAIN_SET)
      for (const s of [
        c,
        `${c} x`,
        `x ${c}`,
        `x|${c}`,
        `x && ${c}`,
        `x||${c} y`,
        `x;${c}`,
        `x\n${c}`,
        `x |\n\n${c}`,
        `${c}${c}=${c}`,
        `x ${c}=${c}`,
      ])
        sameReading(s);
  });

  // Scripts the shortcut must leave to the parser: each is refused, and the readings are equal anyway.
  it.each([
    // Reserved words and `time` where a command starts, also after operators and newlines.
    'time ls',
    'time -p ls',
    'ls | time ls',
    'ls && time -p ls',
    'ls\ntime ls',
    'if ls',
    'ls; then ls',
    'ls\ndo',
    'ls || done',
    'function f',
    'coproc ls',
    'coproc x ls',
    'select x',
    'in x',
    'esac',
    'for x',
    '! ls',
    '{ ls; }',
    '[[ x ]]',
    // An assignment (or anything with `=`) as the first word.
    'a=b ls',
    'a+=b',
    '=',
    '1a=2 ls',
    'ls; PATH=. ls',
    'ls |\nGIT_DIR=x git log',
    // Operator runs and missing commands.
    'a;;',
    'a ;; b',
    'a;&',
    'a ;;& b',
    'a &&& b',
    'a&&&b',
    'a ||| b',
    'a |& b',
    'a & b',
    'a &',
    'a & ',
    '&& a',
    '|| a',
    '| a',
    '; a',
    'a |',
    'a &&',
    'a ||\n\n',
    'a\n| b',
    'a\n&& b',
    'a\n; b',
    'a; ; b',
    'a | | b',
    '',
    ' ',
    '\n\n',
    // Characters that are not plain next to plain words.
    'ls\r',
    'ls\r\ngit log',
    'ls\vx',
    'ls\fx',
    'ls\0x',
    'ls\u00a0x',
    'ls é',
    'ls \u2028 x',
    'ls \ud800',
    'ls #c',
    'ls a#b',
    'ls ~',
    'ls [a]',
    'ls {a,b}',
    'ls $x',
    'ls \\; x',
  ])('refuses %j', (s) => {
    expect(scanPlainScript(s)).toBeUndefined();
    sameReading(s);
  });

  // Plain scripts the shortcut reads: the readings are equal.
  it.each([
    'echo time if then fi do done in esac function coproc select',
    'ls -p',
    'ls a=b c+=d =',
    'git log --format=%H%G --output=x',
    'declare a=b x=* y= z+=1',
    'export a=b; typeset -i c=1; local d; readonly e=f',
    'exec ls',
    'exec -a x rm',
    'eval ls',
    'eval eval rm',
    'builtin eval rm',
    'command eval rm',
    'command -p rm',
    'builtin command exec rm',
    'jobs -x rm',
    'command jobs -x rm',
    'let a',
    'test -v a',
    'wait -p x',
    'printf -v x y',
    'enable -f x y',
    '. x',
    'source x',
    'trap rm EXIT',
    'fc -e rm',
    'mapfile -C rm x',
    'bash -c rm',
    'sudo -u x rm',
    'env a=b rm',
    'ls | xargs rm',
    'ls | python3 -',
    'ls |\n bash',
    'ls || sh -s x',
    '%1',
    '% ls',
    '^a^b',
    '2',
    '2 ls',
    '-',
    '-rf x',
    '--',
    '*',
    '/bin/r?',
    'r* x',
    './x | ../y && /bin/rm',
    'a\n\n\nb',
    'a;\n',
    'a;',
    'a ;  b;',
    'a |\n\n b',
    'a &&\n b ||\n c',
    '\t a \t|\t b\t',
    'git log\n',
  ])('reads %j as the parser does', (s) => {
    expect(scanPlainScript(s)).toBeDefined();
    sameReading(s);
  });

  it('at and over the length limit', () => {
    for (const s of [
      'a'.repeat(MAX_SCRIPT_LENGTH),
      'a'.repeat(MAX_SCRIPT_LENGTH + 1),
      `${'ls|'.repeat((MAX_SCRIPT_LENGTH - 2) / 3)}ls`.slice(0, MAX_SCRIPT_LENGTH),
      `${'git log && '.repeat(MAX_SCRIPT_LENGTH / 11)}rm`,
      `${'\n'.repeat(MAX_SCRIPT_LENGTH - 6)}git log`,
    ]) {
      const plain = extractCommands(s);
      expect(plain).toEqual(extractCommandsByParser(s));
      if (s.length > MAX_SCRIPT_LENGTH) expect(plain.unanalysable.map((r) => r.kind)).toEqual(['limit']);
    }
  });
});

/** The ground truth: logging stubs on PATH (keywords and odd names included) and bash's own trace. */
let root: string;
let bin: string;
let log: string;
let work: string;
/** Names with a logging stub: if bash ran any of these as a program, the log says so. */
const STUBS = [
  'ls',
  'rm',
  'cat',
  'git',
  'x',
  'y',
  'a',
  'b',
  'time',
  'if',
  'coproc',
  'function',
  'select',
  'in',
  'done',
  '%1',
  '%',
  '^a^b',
  '2',
  '-',
  '--',
  '-p',
  '-rf',
  'echo',
];
/** Real programs behind a logging shim. */
const REAL: Record<string, string> = {
  env: '/usr/bin/env',
  xargs: '/usr/bin/xargs',
  nice: '/usr/bin/nice',
  timeout: '/usr/bin/timeout',
  bash: '/bin/bash',
  sh: '/usr/bin/dash',
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dsh-plain-red-'));
  bin = join(root, 'bin');
  log = join(root, 'log');
  work = join(root, 'work');
  mkdirSync(bin);
  mkdirSync(work);
  for (const f of ['a', 'ab', 'x.ts']) writeFileSync(join(work, f), '');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const stub = (name: string, body: string) => {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/bash\nprintf '%s\\n' "\${0##*/}" >> ${q(log)}\n${body}\n`);
    chmodSync(file, 0o755);
  };
  for (const name of STUBS) stub(name, 'exit 0');
  for (const [name, real] of Object.entries(REAL)) stub(name, `exec ${q(real)} "$@"`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs a script as the host's bash does (`-c`, or `-xc` to trace it) over the stubs, with an empty log. */
function bash(flag: '-c' | '-xc', script: string) {
  writeFileSync(log, '');
  return spawnSync('/bin/bash', ['--norc', '--noprofile', flag, script], {
    cwd: work,
    env: { PATH: bin, HOME: root, LANG: 'C', PS4: '+ ' },
    input: '',
    timeout: 10_000,
    encoding: 'utf8',
  });
}

/** What real bash ran: the programs the stubs logged, and the command names of its `-x` trace. */
function truth(script: string): { programs: string[]; traced: string[] } {
  const run = bash('-xc', script);
  const programs = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const traced = run.stderr
    .split('\n')
    .filter((l) => l.startsWith('+'))
    .map((l) =>
      l
        .replace(/^\++ /, '')
        .split(' ')[0]!
        .replace(/^'(.*)'$/, '$1'),
    );
  return { programs, traced };
}

/** A plain script is fully explained: unanalysable, or every program and command bash ran is reported. */
function explained(script: string): void {
  expect(scanPlainScript(script), JSON.stringify(script)).toBeDefined();
  const analysis = extractCommands(script);
  if (analysis.unanalysable.length > 0) return;
  const { programs, traced } = truth(script);
  const names = new Set(analysis.commands.map((c) => c.name));
  const written = new Set(analysis.commands.map((c) => c.words[0]!.value));
  for (const p of programs) expect([...names], `programs of ${JSON.stringify(script)}`).toContain(p);
  for (const t of traced) expect([...written], `trace of ${JSON.stringify(script)}`).toContain(t);
}

describe('plain shortcut red team: real bash runs nothing the analysis does not report', () => {
  it.each([
    'echo time; echo if coproc function select in done',
    'ls -p && echo -p',
    '%1 || % ls',
    '^a^b',
    '2 x; - x; -- x; -p x; -rf x',
    'ls a=b time=x',
    'eval ls',
    'eval eval rm',
    'builtin eval rm',
    'command eval rm x',
    'command -p rm',
    'command exec rm',
    'exec -a x rm',
    'jobs -x rm',
    'command jobs -x rm',
    'env rm',
    'env -i a=b rm',
    'nice -n 5 rm',
    'timeout 5 rm',
    'bash -c rm',
    'sh -c rm',
    'ls | xargs rm',
    'ls |\n\n rm',
    'ls &&\n rm ||\n cat',
    '\t ls \t;\t rm\t',
    'a* x',
    '?s',
    'x ; a ; b',
  ])('%j', (s) => explained(s));

  it('on generated plain scripts', () => {
    const word = fc.oneof(
      fc.constantFrom(
        ...STUBS,
        ...Object.keys(REAL),
        'eval',
        'command',
        'builtin',
        'exec',
        'jobs',
        '-x',
        '-c',
        '-i',
      ),
      fc.string({ unit: fc.constantFrom(...'ab_.,:+%@^-*?'), minLength: 1, maxLength: 3 }),
    );
    const op = fc.constantFrom(' ', ' ', ' ', '\t', '\n', ' | ', ' && ', ' || ', '; ', ' |\n');
    const script = fc
      .array(fc.tuple(word, op), { minLength: 1, maxLength: 6 })
      .map((t) =>
        t
          .map(([w, o]) => w + o)
          .join('')
          .trim(),
      )
      .filter((s) => scanPlainScript(s) !== undefined);
    fc.assert(fc.property(script, explained), { numRuns: 300 });
  });

  // The host runs `bash --norc --noprofile -c SCRIPT`: a script starting with `-` or `+` is read by bash as more
  // options, not as a script, so bash runs nothing; the analysis still lists the words as a command, and plan denies.
  it.each(['-x ls', '-c rm', '+O rm', '-- rm', '- rm', '-i', '-rf x'])('a leading `-` or `+`: %j', (s) => {
    expect(scanPlainScript(s)).toBeDefined();
    sameReading(s);
    const run = bash('-c', s);
    expect(run.status).not.toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('');
    expect(extractCommands(s).commands.map((c) => c.name)[0]).toBe(s.split(' ')[0]);
    expect(decide(s)).toBe('deny');
  });
});

describe('plain shortcut red team: plan decides a plain script as it does through the parser', () => {
  // A trailing comment leaves the commands as they are but sends the script to the parser.
  const viaParser = (s: string) => `${s}\n#`;
  const PLAN_WORDS = [
    'git',
    'log',
    'show',
    'diff',
    'status',
    'branch',
    '--list',
    '-p',
    '--output=x',
    '--ext-diff',
    '--format=%G',
    '-c',
    '-C',
    'ls',
    'cat',
    'head',
    'echo',
    'sort',
    '-o',
    'uniq',
    'find',
    '-exec',
    '-delete',
    'rg',
    '--pre',
    'x',
    'a',
    'time',
    'if',
    '%1',
    '2',
    '-',
    'env',
    'xargs',
    'bash',
    'eval',
    'command',
    'builtin',
    'exec',
    'jobs',
    '-x',
    'rm',
    'cd',
    '..',
    'HEAD~1',
    '*.ts',
    'a=b',
    'declare',
    'wait',
    'printf',
    '-v',
    '.',
    'which',
    'wc',
    '-l',
  ];

  it('on generated plain scripts from plan’s own vocabulary', () => {
    let allowed = 0;
    const script = fc
      .array(
        fc.tuple(
          fc.constantFrom(...PLAN_WORDS),
          fc.constantFrom(' ', ' ', ' ', '\n', ' | ', ' && ', ' || ', '; '),
        ),
        { minLength: 1, maxLength: 7 },
      )
      .map((t) =>
        t
          .map(([w, o]) => w + o)
          .join('')
          .trim(),
      );
    fc.assert(
      fc.property(script, (s) => {
        const decision = decide(s);
        if (scanPlainScript(s) !== undefined && decision === 'allow') allowed++;
        expect(decision, JSON.stringify(s)).toBe(decide(viaParser(s)));
      }),
      { numRuns: 5_000 },
    );
    // Allowed plain scripts are met often, or the property says little about them.
    expect(allowed).toBeGreaterThan(60);
  });

  it.each([
    ['git log --oneline', 'allow'],
    ['git log | head -5 && ls -la; wc -l a\n', 'allow'],
    ['git log\nrm x', 'deny'],
    ['git log; time rm x', 'deny'],
    ['git log && eval rm', 'deny'],
    ['git log | jobs -x rm', 'deny'],
    ['git log | command rm', 'deny'],
    ['git log | builtin eval ls', 'deny'],
    ['ls | xargs cat', 'deny'],
    ['%1', 'deny'],
    ['ls *', 'deny'],
    ['l? x', 'deny'],
    ['GIT_DIR=x git log', 'deny'],
    ['git log;;', 'deny'],
    ['git log & rm x', 'deny'],
    ['git log |& rm x', 'deny'],
    ['git log\r\nrm x', 'deny'],
    ['git log\vrm x', 'deny'],
    ['git log --output=x', 'deny'],
  ] as const)('%j: %s', (s, expected) => {
    expect(decide(s)).toBe(expected);
    expect(decide(viaParser(s))).toBe(expected);
  });
});
