/**
 * The differential corpus: each script of fixtures/shell-corpus.yaml runs under real /bin/bash, in a fresh temp
 * folder, with PATH at a folder of logging stubs, HOME at the temp folder, `--norc --noprofile` and stdin closed.
 * What the stubs log is the ground truth: the analyser must name every program that ran, or call the script
 * unanalysable. Wrappers and interpreters are the real programs behind a logging shim (their own PATH lookups hit
 * the stubs); `sudo`, `time` and `watch`, which are missing here or never exit, are stubs that log and run what
 * they wrap.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { extractCommands } from '../../src/compile/shell/index.js';

interface Case {
  class: string;
  script: string;
  expect: 'analysable' | 'unanalysable';
  ran: string[];
}

const cases = parseYaml(
  readFileSync(new URL('./fixtures/shell-corpus.yaml', import.meta.url), 'utf8'),
) as Case[];

/** Programs that only log. */
const LOGGERS = ['rm', 'ls', 'cat', 'git', 'grep', 'tee', 'echo', 'touch', 'python3'];
/** Real programs behind a logging shim. */
const REAL: Record<string, string> = {
  env: '/usr/bin/env',
  xargs: '/usr/bin/xargs',
  find: '/usr/bin/find',
  timeout: '/usr/bin/timeout',
  nice: '/usr/bin/nice',
  nohup: '/usr/bin/nohup',
  stdbuf: '/usr/bin/stdbuf',
  setsid: '/usr/bin/setsid',
  flock: '/usr/bin/flock',
  sh: '/usr/bin/dash',
  bash: '/bin/bash',
  perl: '/usr/bin/perl',
  node: process.execPath,
};
/** Stubs that log and run what they wrap, skipping the options that take a value. */
const EMULATED: Record<string, string> = {
  sudo: `while [[ $1 == -* ]]; do case $1 in -u|-g|-C|-D|-p|-r|-t|-T|-U|-R) shift 2;; --) shift; break;; *) shift;; esac; done; exec "$@"`,
  time: `while [[ $1 == -* ]]; do case $1 in -f|-o) shift 2;; --) shift; break;; *) shift;; esac; done; exec "$@"`,
  watch: `x=; while [[ $1 == -* ]]; do case $1 in -n|-q) shift 2;; -x) x=1; shift;; --) shift; break;; *) shift;; esac; done; if [[ $x ]]; then exec "$@"; else exec /bin/sh -c "$*"; fi`,
};
/** Shell builtins and keywords: the analyser lists them, the stubs never see them. */
const BUILTINS = new Set([
  'echo',
  ':',
  'true',
  'false',
  '[',
  'test',
  'wait',
  'break',
  'read',
  'let',
  'export',
  'eval',
  'exec',
  'command',
  'builtin',
  'trap',
  'shopt',
  'alias',
  'hash',
  '.',
  'printf',
  'f',
]);

let root = '';
let bin = '';
let log = '';
const notes: string[] = [];

function stub(name: string, body: string): void {
  const file = join(bin, name);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    file,
    `#!/bin/bash\nprintf '%s' "\${0##*/}" >> ${q(log)}; printf '\\t%s' "$@" >> ${q(log)}; printf '\\n' >> ${q(log)}\n${body}\n`,
  );
  chmodSync(file, 0o755);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dsh-shell-corpus-'));
  bin = join(root, 'bin');
  log = join(root, 'log');
  mkdirSync(bin);
  for (const name of LOGGERS) stub(name, 'exit 0');
  for (const [name, real] of Object.entries(REAL)) stub(name, `exec '${real}' "$@"`);
  for (const [name, body] of Object.entries(EMULATED)) stub(name, body);
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  if (notes.length > 0)
    console.log(
      `shell corpus: listed but did not run (fail-closed over-approximation):\n  ${notes.join('\n  ')}`,
    );
});

/** Runs one script under real bash and returns the names of the programs the stubs saw. */
function groundTruth(script: string, n: number): string[] {
  const work = join(root, `case-${n}`);
  mkdirSync(work);
  for (const f of ['a', 'b', 'x', 'y']) writeFileSync(join(work, f), `${f}\n`);
  writeFileSync(log, '');
  const result = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', script], {
    cwd: work,
    env: { PATH: bin, HOME: root, LANG: 'C' },
    input: '',
    timeout: 10_000,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  const lines = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
    : [];
  return lines.map((l) => l.split('\t')[0]!);
}

describe('extractCommands: the differential corpus against real bash', () => {
  it('has at least 60 cases and covers every class', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const classes = new Set(cases.map((c) => c.class));
    for (const c of [
      'chaining',
      'substitution',
      'process-substitution',
      'compound',
      'arithmetic',
      'time',
      'definition',
      'wrapper',
      'git',
      'redirect',
      'heredoc',
      'assignment',
      'name',
      'parse-error',
    ])
      expect(classes).toContain(c);
  });

  it.each(cases.map((c, i) => [i, c.class, c.script, c] as const))('#%i %s: %j', (i, _class, script, c) => {
    const truth = groundTruth(script, i);
    // The stubs work: what the case says ran, ran.
    for (const name of c.ran) expect(truth, `ground truth of ${JSON.stringify(script)}`).toContain(name);
    const analysis = extractCommands(script);
    const reported = new Set(analysis.commands.map((cmd) => cmd.name));
    const reasons = analysis.unanalysable.map((r) => `${r.kind}: ${r.message}`);
    if (c.expect === 'analysable') {
      expect(reasons, `reasons for ${JSON.stringify(script)}`).toEqual([]);
      // Fully explained: every program bash ran is listed.
      for (const name of truth)
        expect([...reported], `programs of ${JSON.stringify(script)}`).toContain(name);
    } else {
      expect(reasons.length, `unanalysable: ${JSON.stringify(script)}`).toBeGreaterThan(0);
    }
    for (const name of reported)
      if (!truth.includes(name) && !BUILTINS.has(name)) notes.push(`${JSON.stringify(script)}: ${name}`);
  });
});
