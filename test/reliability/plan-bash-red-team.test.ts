/**
 * Red team of plan's bash commands: each finding is a script plan used to allow that really changed something when
 * real bash ran it (a file, a branch, a program outside the set). Each test shows the harm with /bin/bash in a
 * temp folder and that the real decision (the built-in plan, through `decideCall`) now denies the script. A hole
 * whose fix is not small stays as `it.fails(...)`, named in its comment: it starts failing once the hole is closed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsProgramCheck } from '../../src/compile/decide/fs-program-check.js';
import { builtinPlan, hostBash } from './host-bash.js';

const plan = builtinPlan;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

let dir: string;
const bash = (command: string, env: NodeJS.ProcessEnv = {}) => hostBash(command, dir, dir, env);
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

describe('plan bash red team: repositories the workspace check did not reach', () => {
  // Each case is a repository that passed `fsProgramCheck` (commit 5837bb2) while a plain allowed read made git
  // open another repository, or fetch, and run what that one names. `remote.origin.uploadpack` stands for any
  // program: git runs it (through the shell) to fetch a missing object from a promisor remote.
  const gate = (command: string) =>
    plan.decideCall!({ name: 'bash', arguments: { command } }, { checkProgram: fsProgramCheck(dir) });
  const ran = (name: string) => existsSync(join(dir, name));
  const outside: string[] = [];
  const tempRepo = () => {
    const repo = mkdtempSync(join(tmpdir(), 'dsh-plan-other-'));
    outside.push(repo);
    git(
      `init -q ${repo} && git -C ${repo} add -A && git -c user.name=t -c user.email=t@t -C ${repo} commit -q --allow-empty -m s`,
    );
    return repo;
  };
  afterEach(() => {
    for (const repo of outside.splice(0)) rmSync(repo, { recursive: true, force: true });
  });
  /** Deletes the loose object `rev` names from the repository `gitDir`, and makes fetching it run `touch NAME`. */
  const hostilePromisor = (gitDir: string, rev: string, name: string) => {
    const oid = git(`--git-dir=${gitDir} --work-tree=${gitDir} rev-parse ${rev}`).trim();
    rmSync(join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2)));
    expect(bash(`git --git-dir=${gitDir} --work-tree=${gitDir} cat-file -e ${oid}`).status).not.toBe(0);
    git(`--git-dir=${gitDir} --work-tree=${gitDir} config remote.origin.url file:///nowhere`);
    git(`--git-dir=${gitDir} --work-tree=${gitDir} config remote.origin.promisor true`);
    git(
      `--git-dir=${gitDir} --work-tree=${gitDir} config remote.origin.uploadpack 'touch ${join(dir, name)}; false'`,
    );
  };

  it('`core.worktree` outside the folder git runs in: the check skipped its submodules, `git status` entered one', () => {
    // The repository's git directory stays at the workspace root; its work tree is `wt/`, with a submodule.
    bash(
      'mkdir -p wt/sub && git -C wt/sub init -q && git -c user.name=t -c user.email=t@t -C wt/sub commit -q --allow-empty -m s',
    );
    git('config core.worktree ../wt'); // relative to `.git`
    git('add sub 2>/dev/null && git -c user.name=t -c user.email=t@t commit -qm sub');
    expect(git('rev-parse --is-inside-work-tree').trim()).toBe('false');
    expect(gate('git status --short').decision).toBe('allow');
    git(`-C wt/sub config core.fsmonitor 'touch ${join(dir, 'fsmonitor-ran')}; false'`);
    writeFileSync(join(dir, 'wt/sub/new'), 'x\n');
    bash('git status --short');
    expect(ran('fsmonitor-ran')).toBe(true);
    const verdict = gate('git status --short');
    expect(verdict.decision).toBe('deny');
    expect(verdict.note).toMatch(/^in submodule `sub`: .*`core\.fsmonitor`/);
  });

  it('a promisor remote: `git show` of a missing object runs `git-upload-pack` and writes a pack, and the gate withholds it', () => {
    // Only settings from the allowlist of 5837bb2: `remote.origin.url` and `remote.origin.promisor`.
    const remote = mkdtempSync(join(tmpdir(), 'dsh-plan-remote-'));
    outside.push(remote);
    git(`clone -q --bare . ${remote} && git -C ${remote} config uploadpack.allowAnySHA1InWant true`);
    const blob = git('rev-parse HEAD:a').trim();
    rmSync(join(dir, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    git(`config remote.origin.url file://${remote}`);
    git('config remote.origin.promisor true');
    expect(bash('ls .git/objects/pack').stdout).not.toContain('.pack');
    const run = bash('git show HEAD:a', { GIT_TRACE: '1' });
    expect(run.stdout).toBe('a\n'); // fetched from outside the workspace
    expect(run.stderr).toContain('git-upload-pack');
    expect(bash('ls .git/objects/pack').stdout).toContain('.pack');
    const verdict = gate('git show HEAD:a');
    expect(verdict.decision).toBe('deny');
    expect(verdict.note).toContain('`remote.origin.promisor`');
    git('config --unset remote.origin.promisor');
    git('config extensions.partialClone origin');
    expect(gate('git show HEAD:a').note).toContain('`extensions.partialclone`');
  });

  it('a submodule with an empty folder: `git grep --recurse-submodules --cached` opens `.git/modules/NAME`, and both the pattern and the check deny it', () => {
    const source = tempRepo();
    writeFileSync(join(source, 'f'), 'x\n');
    git(`-C ${source} add f && git -c user.name=t -c user.email=t@t -C ${source} commit -qm f`);
    git(
      `-c protocol.file.allow=always submodule add -q ${source} sub && git -c user.name=t -c user.email=t@t commit -qm sub`,
    );
    // Not populated (an empty folder, as `git submodule deinit` leaves it): 5837bb2's check skipped it.
    rmSync(join(dir, 'sub'), { recursive: true, force: true });
    mkdirSync(join(dir, 'sub'));
    expect(git('ls-files --recurse-submodules')).toContain('sub/f'); // git reads `.git/modules/sub` anyway
    expect(gate('git ls-files --recurse-submodules').decision).toBe('allow');
    hostilePromisor(join(dir, '.git/modules/sub'), 'HEAD:f', 'upload-pack-ran');
    bash('git grep --recurse-submodules --cached x');
    expect(ran('upload-pack-ran')).toBe(true);
    expect(gate('git grep --recurse-submodules --cached x').decision).toBe('deny'); // the pattern
    const verdict = gate('git ls-files --recurse-submodules'); // the check, for what else opens it
    expect(verdict.decision).toBe('deny');
    expect(verdict.note).toMatch(/^in submodule `sub` .*`remote\.origin\.promisor`/);
  });

  it('a name only an old commit’s `.gitmodules` gives: `git grep --recurse-submodules x COMMIT` opens `.git/modules/NAME`, and plan denies it', () => {
    const source = tempRepo();
    writeFileSync(join(source, 'f'), 'x\n');
    git(`-C ${source} add f && git -c user.name=t -c user.email=t@t -C ${source} commit -qm f`);
    git(
      `-c protocol.file.allow=always submodule add -q --name old ${source} lib && git -c user.name=t -c user.email=t@t commit -qm sub`,
    );
    git(
      'rm -q lib && git rm -q --cached .gitmodules && git -c user.name=t -c user.email=t@t commit -qm unsub',
    );
    rmSync(join(dir, '.gitmodules'), { force: true });
    mkdirSync(join(dir, 'lib'));
    hostilePromisor(join(dir, '.git/modules/old'), 'HEAD:f', 'upload-pack-ran');
    bash('git grep --recurse-submodules x HEAD~1');
    expect(ran('upload-pack-ran')).toBe(true);
    expect(fsProgramCheck(dir)('git')).toBeUndefined(); // no `.gitmodules` now names `old`
    for (const command of ['git grep --recurse-submodules x HEAD~1', 'git grep --recurse x HEAD~1'])
      expect(gate(command).decision, command).toBe('deny');
    expect(gate('git grep --recursive x HEAD~1').decision).toBe('allow');
  });

  it('a deinitialised submodule (empty folder, `.git/modules/NAME` kept) and `diff.submodule=short` keep their reads', () => {
    const source = tempRepo();
    git(
      `-c protocol.file.allow=always submodule add -q ${source} sub && git -c user.name=t -c user.email=t@t commit -qm sub`,
    );
    git('submodule deinit -q sub');
    expect(existsSync(join(dir, '.git/modules/sub'))).toBe(true);
    git('config diff.submodule short');
    for (const command of ['git status --short', 'git ls-files --recurse-submodules', 'git log -p -1'])
      expect(gate(command).decision, command).toBe('allow');
  });

  it('a repository where a commit once had a gitlink: `--submodule` and `diff.submodule=log` open it, and both are denied', () => {
    // `sub` is a gitlink in one commit only, now an untracked nested repository: no index entry, so not checked.
    bash(
      'mkdir sub && git -C sub init -q && git -c user.name=t -c user.email=t@t -C sub commit -q --allow-empty -m s',
    );
    git('add sub 2>/dev/null && git -c user.name=t -c user.email=t@t commit -qm sub');
    git('rm -q --cached sub && git -c user.name=t -c user.email=t@t commit -qm unsub');
    hostilePromisor(join(dir, 'sub/.git'), 'HEAD', 'upload-pack-ran');
    expect(gate('git log -p').decision).toBe('allow');
    bash('git log -p');
    expect(ran('upload-pack-ran')).toBe(false); // the default format does not open it
    for (const command of [
      'git log -p --submodule=log',
      'git show --submodule HEAD~1',
      'git diff --submodule HEAD~2 HEAD~1',
    ]) {
      rmSync(join(dir, 'upload-pack-ran'), { force: true });
      bash(command);
      expect(ran('upload-pack-ran'), command).toBe(true);
      expect(gate(command).decision, command).toBe('deny');
    }
    git('config diff.submodule log');
    rmSync(join(dir, 'upload-pack-ran'), { force: true });
    bash('git log -p');
    expect(ran('upload-pack-ran')).toBe(true);
    expect(gate('git log -p').note).toContain('`diff.submodule`');
  });
});
