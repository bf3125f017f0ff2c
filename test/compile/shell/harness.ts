/**
 * Ground truth for the shell analyser: runs a script under real /bin/bash (`--norc --noprofile`, stdin closed)
 * in a fresh folder holding the files a, b, x, y, with PATH at a folder of logging stubs and HOME at the temp
 * folder, and returns the names of the programs that ran. Plain programs are stubs that only log; wrappers and
 * interpreters are the real programs behind a logging shim (their own PATH lookups hit the stubs); `sudo`,
 * `time` and `watch` (missing here, or never exiting) are stubs that log and run what they wrap.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Programs that only log. */
const LOGGERS = ['rm', 'ls', 'cat', 'git', 'grep', 'tee', 'echo', 'touch', 'python3', 'head'];
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
  dash: '/usr/bin/dash',
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
export const BUILTINS = new Set([
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
]);

/** A stub folder and the runner over it. */
export interface Harness {
  /** Runs a script and returns the names of the programs that ran, in order. */
  run(script: string): string[];
  dispose(): void;
}

/**
 * Makes the stub folder.
 * @returns the harness; `dispose()` removes everything it made
 */
export function makeHarness(): Harness {
  const root = mkdtempSync(join(tmpdir(), 'dsh-shell-truth-'));
  const bin = join(root, 'bin');
  const log = join(root, 'log');
  mkdirSync(bin);
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const stub = (name: string, body: string) => {
    const file = join(bin, name);
    writeFileSync(
      file,
      // One write per line, so stubs running at once (a pipeline) never interleave.
      `#!/bin/bash\nprintf -v args '\\t%q' "$@"; printf '%s%s\\n' "\${0##*/}" "$args" >> ${q(log)}\n${body}\n`,
    );
    chmodSync(file, 0o755);
  };
  for (const name of LOGGERS) stub(name, 'exit 0');
  for (const [name, real] of Object.entries(REAL)) stub(name, `exec ${q(real)} "$@"`);
  for (const [name, body] of Object.entries(EMULATED)) stub(name, body);
  let n = 0;
  return {
    run(script) {
      const work = join(root, `case-${n++}`);
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
    },
    dispose() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
