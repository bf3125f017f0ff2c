/**
 * Red team of plan's bash commands: each finding is a script plan used to allow that really changed something when
 * real bash ran it (a file, a branch, a program outside the set). Each test shows the harm with /bin/bash in a
 * temp folder and that the real decision (the built-in plan, through `decideCall`) now denies the script. A hole
 * whose fix is not small stays as `it.fails(...)`, named in its comment: it starts failing once the hole is closed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  compilePolicies,
  fsProgramCheck,
  loadPolicySources,
  type CompiledPolicy,
} from '../../src/compile/index.js';
import { shellEnvironment } from '../../src/host/tools/bash.js';

const loaded = await loadPolicySources([]);
const plan: CompiledPolicy = compilePolicies(loaded.documents).get('plan')!;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

let dir: string;
/** Runs a script as the host's bash tool does: `--norc --noprofile`, stdin closed, the tool's environment. */
const bash = (command: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', command], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
    env: { ...shellEnvironment(process.env), HOME: dir, GIT_CONFIG_NOSYSTEM: '1', ...env },
  });
const git = (command: string) => {
  const run = bash(`git -c user.name=t -c user.email=t@t ${command}`);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-plan-red-'));
  writeFileSync(join(dir, 'a'), 'a\n');
  git('init -q . && git add a && git -c user.name=t -c user.email=t@t commit -qm one');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('plan bash red team: a variable whose value is the model’s text, evaluated as code', () => {
  // `$_` is the last argument of the previous command, `BASH_REMATCH` what `[[ =~ ]]` matched: bash evaluates a
  // variable named in arithmetic as an expression of its own and runs the `$(…)` in its subscripts; `${!x}` uses
  // the value as a name (subscript included) and `${x@P}` expands it as a prompt. None of these is a command, so
  // only `echo`/`cat`/`ls` were judged, and allowed.
  it.each([
    "echo 'a[$(touch pwned)]' >/dev/null; (( _ ))",
    "echo 'a[$(touch pwned)]' >/dev/null; (( _ )) && ls",
    "echo 'a[$(touch pwned)]' >/dev/null; [[ _ -eq 0 ]]",
    "echo 'a[$(touch pwned)]' >/dev/null; [[ 1 -eq _ ]]",
    "echo 'a[$(touch pwned)]' >/dev/null; [[ -v b[_] ]]",
    "echo 'a[$(touch pwned)]' >/dev/null; [[ -v $_ ]]",
    'echo \'a[$(touch pwned)]\' >/dev/null; [[ -v "$_" ]]',
    "echo 'a[$(touch pwned)]' >/dev/null; cat <<< $[_]",
    'echo \'a[$(touch pwned)]\' >/dev/null; cat <<< "${b[_]}"',
    "echo 'a[$(touch pwned)]' >/dev/null; for (( ; _ ; )); do ls; break; done",
    "[[ 'a[$(touch pwned)]' =~ .* ]]; (( BASH_REMATCH )); ls",
    "echo 'a[$(touch pwned)]' >/dev/null; cat <<< ${!_}",
    "echo 'a[$(touch pwned)]' >/dev/null; case ${!_} in *) ls;; esac",
    "echo '$(touch pwned)' >/dev/null; cat <<< ${_@P}",
    "echo '$(touch pwned)' >/dev/null; [[ -n ${_@P} ]]",
    "echo '$(touch pwned)' >/dev/null; cat <<E\n${_@P}\nE",
  ])('%j runs `touch`, and plan denies it', (script) => {
    expect(decide(script)).toBe('deny');
    bash(script);
    expect(existsSync(join(dir, 'pwned'))).toBe(true);
  });

  it('a `${x:=v}` assignment in a word nobody judges is denied', () => {
    expect(decide('case ${PATH:=/tmp} in *) ls;; esac')).toBe('deny');
    expect(decide('cat <<< ${x:=1}')).toBe('deny');
  });

  it('arithmetic on numbers alone, and `[[ -v NAME ]]`, stay allowed', () => {
    expect(decide('(( 1 + 0x1f + 16#ff )) && ls')).toBe('allow');
    expect(decide("echo 'a[$(touch pwned)]' >/dev/null; [[ -v _ ]] && ls")).toBe('allow');
    bash("echo 'a[$(touch pwned)]' >/dev/null; [[ -v _ ]] && ls");
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });
});

describe('plan bash red team: options git reads differently from the patterns', () => {
  it('`git branch --list --no-list NAME` creates the branch (parse-options: `--no-l` too), and plan denies it', () => {
    for (const [n, script] of ['--no-list', '--no-l', '--no-lis'].map((f, i) => [
      i,
      `git branch --list ${f} b${i}`,
    ])) {
      expect(decide(script as string), script as string).toBe('deny');
      bash(script as string);
      expect(git('branch --list'), script as string).toContain(`b${n}`);
    }
  });

  it('a gpg placeholder with a `+`, `-` or space modifier runs gpg on a signed commit, and plan denies it', () => {
    // A commit with a (junk) signature, as any repository with signed commits has.
    const tree = git('rev-parse HEAD^{tree}').trim();
    writeFileSync(
      join(dir, 'c'),
      `tree ${tree}\nauthor t <t@t> 1 +0000\ncommitter t <t@t> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n`,
    );
    const commit = git('hash-object -t commit -w c').trim();
    git(`update-ref refs/heads/signed ${commit}`);
    // Only to observe the spawn: without it git runs `gpg`, which creates ~/.gnupg.
    writeFileSync(join(dir, 'gpg'), '#!/bin/sh\ntouch "$(dirname "$0")/gpg-ran"\n');
    chmodSync(join(dir, 'gpg'), 0o755);
    const observe = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'gpg.program',
      GIT_CONFIG_VALUE_0: join(dir, 'gpg'),
    };
    for (const format of ['%-GS', '%+GS', "'% GK'", '%h%x20%-G?']) {
      for (const sub of ['log -1', 'show -s']) {
        const script = `git ${sub} --format=${format} signed`;
        expect(decide(script), script).toBe('deny');
        rmSync(join(dir, 'gpg-ran'), { force: true });
        bash(script, observe);
        expect(existsSync(join(dir, 'gpg-ran')), script).toBe(true);
      }
    }
    expect(decide('git log -1 --format=%h%x20%s signed')).toBe('allow');
  });
});

describe('plan bash red team: a hostile repository configuration', () => {
  // The workspace's own .git/config, attributes and hooks name programs git runs during plain reads, and nothing
  // in a script shows them. The gate checks the repository (`fsProgramCheck`) before a pattern's allow lets git
  // run: each case shows the program runs when the command does, and that the gate withholds the allow.
  const gate = (command: string) =>
    plan.decideCall!({ name: 'bash', arguments: { command } }, { checkProgram: fsProgramCheck(dir) });
  const ran = (name: string) => existsSync(join(dir, name));

  it('a clean repository keeps its reads', () => {
    for (const command of ['git status --short', 'git log -p -1', 'git diff', 'git blame a'])
      expect(gate(command).decision, command).toBe('allow');
  });

  it('`git status` runs a configured fsmonitor program, and the gate withholds it', () => {
    git(`config core.fsmonitor 'touch ${join(dir, 'fsmonitor-ran')}; false'`);
    bash('git status --short');
    expect(ran('fsmonitor-ran')).toBe(true);
    const verdict = gate('git status --short');
    expect(verdict.decision).toBe('deny');
    expect(verdict.withheld).toBe(true);
    expect(verdict.note).toContain('`core.fsmonitor`');
  });

  it('`git log -p` runs a textconv driver chosen by the attributes, and the gate withholds it', () => {
    writeFileSync(join(dir, '.git/info/attributes'), 'a diff=evil\n');
    git(`config diff.evil.textconv 'sh -c "touch ${join(dir, 'textconv-ran')}; cat \\"\\$1\\"" -'`);
    writeFileSync(join(dir, 'a'), 'b\n');
    git('commit -qam two');
    bash('git log -p -1');
    expect(ran('textconv-ran')).toBe(true);
    expect(gate('git log -p -1').decision).toBe('deny');
    expect(gate('git log -p -1').note).toContain('`diff.evil.textconv`');
  });

  it('`git diff` runs a clean filter, and the gate withholds it', () => {
    writeFileSync(join(dir, '.gitattributes'), 'a filter=evil\n');
    git(`config filter.evil.clean 'touch ${join(dir, 'filter-ran')}; cat'`);
    writeFileSync(join(dir, 'a'), 'changed\n');
    bash('git diff');
    expect(ran('filter-ran')).toBe(true);
    expect(gate('git diff').decision).toBe('deny');
  });

  it('`git diff` writes a refreshed index and runs the post-index-change hook, and the gate withholds it', () => {
    writeFileSync(join(dir, '.git/hooks/post-index-change'), `#!/bin/sh\ntouch '${join(dir, 'hook-ran')}'\n`);
    chmodSync(join(dir, '.git/hooks/post-index-change'), 0o755);
    // Stale stat data in the index, as in any unpacked archive of a repository: the refresh rewrites it.
    writeFileSync(join(dir, 'a'), 'a\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'a'), later, later);
    bash('git diff');
    expect(ran('hook-ran')).toBe(true);
    expect(gate('git diff').decision).toBe('deny');
    expect(gate('git diff').note).toContain('`post-index-change` hook');
  });

  it('an include in the repository config is withheld, whatever the included file says', () => {
    writeFileSync(join(dir, 'inc'), '[core]\n\tfsmonitor = touch x\n');
    git(`config include.path ${join(dir, 'inc')}`);
    expect(gate('git status').decision).toBe('deny');
  });

  it('`git status` enters a populated submodule and runs its fsmonitor, and the gate withholds it', () => {
    const sub = mkdtempSync(join(tmpdir(), 'dsh-plan-sub-'));
    try {
      spawnSync('git', ['init', '-q', sub]);
      spawnSync('git', [
        '-C',
        sub,
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@t',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        's',
      ]);
      git(`-c protocol.file.allow=always submodule add -q ${sub} sub`);
      git('commit -qm sub');
      expect(gate('git status --short').decision).toBe('allow');
      bash(`git -C sub config core.fsmonitor 'touch ${join(dir, 'sub-fsmonitor-ran')}; false'`);
      writeFileSync(join(dir, 'sub', 'new'), 'x\n');
      bash('git status --short');
      expect(ran('sub-fsmonitor-ran')).toBe(true);
      const verdict = gate('git status --short');
      expect(verdict.decision).toBe('deny');
      expect(verdict.note).toMatch(/^in submodule `sub`: .*`core\.fsmonitor`/);
    } finally {
      rmSync(sub, { recursive: true, force: true });
    }
  });

  it('a git reached through a wrapper or a path is checked too', () => {
    git(`config core.fsmonitor 'touch ${join(dir, 'x')}'`);
    for (const command of ['/usr/bin/git status', 'ls && git log -1', 'time git status'])
      expect(gate(command).decision, command).toBe('deny');
  });
});
