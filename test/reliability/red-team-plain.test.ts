/**
 * Red team of plain scripts: plain words joined by `|`, `&&`, `||`, `;` and newlines, with keywords, odd names and
 * separators where a command starts. Each attack is held two ways: real `/bin/bash -x` runs no command the
 * analysis does not report (its trace and logging stubs on PATH are the ground truth), and the built-in plan
 * decides a plain script as it decides the same script with a trailing comment.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicySources, type CompiledPolicy } from '../../src/compile/api.js';
import { extractCommands } from '../../src/compile/shell/extract.js';

const loaded = await loadPolicySources([]);
const plan: CompiledPolicy = compilePolicies(loaded.documents).get('plan')!;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

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
  const analysis = extractCommands(script);
  if (analysis.unanalysable.length > 0) return;
  const { programs, traced } = truth(script);
  const names = new Set(analysis.commands.map((c) => c.name));
  const written = new Set(analysis.commands.map((c) => c.words[0]!.value));
  for (const p of programs) expect([...names], `programs of ${JSON.stringify(script)}`).toContain(p);
  for (const t of traced) expect([...written], `trace of ${JSON.stringify(script)}`).toContain(t);
}

describe('plain scripts red team: real bash runs nothing the analysis does not report', () => {
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
    const script = fc.array(fc.tuple(word, op), { minLength: 1, maxLength: 6 }).map((t) =>
      t
        .map(([w, o]) => w + o)
        .join('')
        .trim(),
    );
    fc.assert(fc.property(script, explained), { numRuns: 300 });
  });

  // The host runs `bash --norc --noprofile -c SCRIPT`: a script starting with `-` or `+` is read by bash as more
  // options, not as a script, so bash runs nothing; the analysis still lists the words as a command, and plan denies.
  it.each(['-x ls', '-c rm', '+O rm', '-- rm', '- rm', '-i', '-rf x'])('a leading `-` or `+`: %j', (s) => {
    const run = bash('-c', s);
    expect(run.status).not.toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('');
    expect(extractCommands(s).commands.map((c) => c.name)[0]).toBe(s.split(' ')[0]);
    expect(decide(s)).toBe('deny');
  });
});

describe('plain scripts red team: plan decides a plain script as it decides it with a trailing comment', () => {
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
        if (decision === 'allow') allowed++;
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
