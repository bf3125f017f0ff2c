/**
 * `fsProgramCheck`: the workspace check behind a pattern's allow for git, on real repositories made with the real
 * git. It answers undefined (the allow stands) only when git would run nothing the repository names; every other
 * state, including one it cannot read, withholds the allow with a reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsProgramCheck, isInertSetting } from '../../../src/compile/decide/fs-program-check.js';

let dir: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    stdio: 'pipe',
  }).toString();
const check = (workspace = dir, env?: NodeJS.ProcessEnv) => fsProgramCheck(workspace, env)('git');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-git-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('isInertSetting', () => {
  it.each([
    ['core.repositoryformatversion', '0'],
    ['remote.origin.url', 'https://example.invalid/x.git'],
    ['branch.main.merge', 'refs/heads/main'],
    ['Remote.Origin.Fetch', '+refs/heads/*:refs/remotes/origin/*'],
    ['color.diff.meta', 'yellow'],
    ['diff.python.xfuncname', '^def'],
    ['filter.lfs.process', 'git-lfs filter-process'],
    ['core.bare', undefined],
    ['core.worktree', '../wt'],
    ['diff.submodule', 'short'],
  ])('%s is inert', (key, value) => expect(isInertSetting(key, value)).toBe(true));

  it.each([
    ['core.fsmonitor', 'x'],
    ['core.hookspath', '.husky'],
    ['core.pager', 'less'],
    ['core.sshcommand', 'ssh'],
    ['diff.external', 'x'],
    ['diff.evil.textconv', 'x'],
    ['diff.evil.command', 'x'],
    ['filter.evil.clean', 'x'],
    ['filter.lfs.process', 'sh -c evil'],
    ['gpg.program', 'x'],
    ['log.showsignature', 'true'],
    ['include.path', 'x'],
    ['includeif.gitdir:/x.path', 'x'],
    ['alias.st', 'status'],
    ['remote.origin.uploadpack', 'x'],
    ['remote.url', 'x'],
    ['credential.helper', 'x'],
    ['an.unknown.key', 'x'],
    ['remote.origin.promisor', 'true'],
    ['extensions.partialclone', 'origin'],
    ['diff.submodule', 'log'],
    ['diff.submodule', 'diff'],
  ])('%s is not', (key, value) => expect(isInertSetting(key, value)).toBe(false));
});

describe('fsProgramCheck', () => {
  it('asks nothing of other programs', () => {
    git(dir, 'init', '-q');
    git(dir, 'config', 'core.fsmonitor', 'x');
    expect(fsProgramCheck(dir)('ls')).toBeUndefined();
    expect(check()).toContain('`core.fsmonitor`');
  });

  it('passes a folder that is no repository, and a fresh or LFS-installed one', () => {
    expect(check()).toBeUndefined();
    git(dir, 'init', '-q');
    expect(check()).toBeUndefined();
    for (const [k, v] of [
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.lfs.smudge', 'git-lfs smudge -- %f'],
      ['filter.lfs.process', 'git-lfs filter-process'],
      ['filter.lfs.required', 'true'],
    ])
      git(dir, 'config', k!, v!);
    expect(check()).toBeUndefined();
    git(dir, 'config', 'filter.lfs.process', 'touch pwned');
    expect(check()).toContain('`filter.lfs.process`');
  });

  it('finds the repository as git does: from a subfolder of the workspace’s repository', () => {
    git(dir, 'init', '-q');
    git(dir, 'config', 'diff.external', 'x');
    mkdirSync(join(dir, 'sub'));
    expect(check(join(dir, 'sub'))).toContain('`diff.external`');
  });

  it('checks a linked worktree’s own configuration and the common one', () => {
    git(dir, 'init', '-q', 'main');
    git(join(dir, 'main'), 'commit', '-q', '--allow-empty', '-m', 'i');
    git(join(dir, 'main'), 'worktree', 'add', '-q', join(dir, 'wt'));
    expect(check(join(dir, 'wt'))).toBeUndefined();
    git(join(dir, 'main'), 'config', 'extensions.worktreeConfig', 'true');
    git(join(dir, 'wt'), 'config', '--worktree', 'core.fsmonitor', 'x');
    expect(check(join(dir, 'wt'))).toContain('`core.fsmonitor`');
    expect(check(join(dir, 'main'))).toBeUndefined();
  });

  it('checks a bare repository used as the workspace', () => {
    git(dir, 'init', '-q', '--bare', 'b.git');
    expect(check(join(dir, 'b.git'))).toBeUndefined();
    git(join(dir, 'b.git'), 'config', 'gpg.program', 'x');
    expect(check(join(dir, 'b.git'))).toContain('`gpg.program`');
  });

  it('withholds when git cannot read the configuration, and when a read hook exists', () => {
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git/config'), '[core\n');
    expect(check()).toMatch(/^git cannot read the configuration at .*bad config/);
    git(dir, 'init', '-q', 'r');
    writeFileSync(join(dir, 'r/.git/hooks/reference-transaction'), '');
    expect(check(join(dir, 'r'))).toContain('`reference-transaction` hook');
  });

  it('ignores the user’s own scopes: global settings and the host’s command-scope settings', () => {
    git(dir, 'init', '-q');
    const home = join(dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, '.gitconfig'), '[core]\n\tpager = less\n');
    const env = {
      ...process.env,
      HOME: home,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'diff.external',
      GIT_CONFIG_VALUE_0: 'x',
    };
    expect(check(dir, env)).toBeUndefined();
  });

  it('checks each `modules/NAME` that a `.gitmodules` names, in the work tree, the index or HEAD', () => {
    git(dir, 'init', '-q');
    git(dir, 'init', '-q', '--bare', '.git/modules/lib');
    git(join(dir, '.git/modules/lib'), 'config', 'core.fsmonitor', 'x');
    expect(check()).toBeUndefined(); // named by no `.gitmodules`: git never opens it
    writeFileSync(join(dir, '.gitmodules'), '[submodule "lib"]\n\tpath = vendor/lib\n');
    expect(check()).toMatch(/^in submodule `lib` .*`core\.fsmonitor`/);
    git(dir, 'add', '.gitmodules');
    rmSync(join(dir, '.gitmodules'));
    expect(check()).toMatch(/^in submodule `lib` .*`core\.fsmonitor`/); // the index's
    git(dir, 'commit', '-qm', 'm');
    git(dir, 'rm', '-q', '--cached', '.gitmodules');
    expect(check()).toMatch(/^in submodule `lib` .*`core\.fsmonitor`/); // HEAD's
    git(join(dir, '.git/modules/lib'), 'config', '--unset', 'core.fsmonitor');
    expect(check()).toBeUndefined();
    rmSync(join(dir, '.git/modules/lib'), { recursive: true });
    writeFileSync(join(dir, '.git/modules/lib'), 'gitdir: /elsewhere\n');
    expect(check()).toMatch(/`lib` has a repository at .* that is not a folder/);
  });

  it('checks one `modules/NAME` again for a second folder it serves, with that folder’s own submodules', () => {
    // `a` is populated (its `.git` names `.git/modules/a`); `.gitmodules` gives the name `a` the path `b` too, so
    // git opens `.git/modules/a` for `b` as well, and `b/q` (a gitlink of that repository) is entered there.
    git(dir, 'init', '-q');
    mkdirSync(join(dir, '.git/modules'));
    git(dir, 'init', '-q', '--separate-git-dir', join(dir, '.git/modules/a'), 'a');
    git(join(dir, 'a'), 'init', '-q', 'q');
    git(join(dir, 'a/q'), 'commit', '-q', '--allow-empty', '-m', 'q');
    git(join(dir, 'a'), 'add', 'q');
    git(join(dir, 'a'), 'commit', '-qm', 'a');
    git(dir, 'add', 'a'); // checked first, as a populated submodule
    mkdirSync(join(dir, 'b'));
    git(join(dir, 'b'), 'init', '-q', 'q');
    writeFileSync(join(dir, '.gitmodules'), '[submodule "a"]\n\tpath = b\n');
    expect(check()).toBeUndefined();
    git(join(dir, 'b/q'), 'config', 'core.fsmonitor', 'x');
    expect(check()).toMatch(/^in submodule `a` .*in submodule `q`: .*`core\.fsmonitor`/);
  });

  it('withholds for a submodule whose path has a line break (its hooks folder would be read from the wrong line)', () => {
    git(dir, 'init', '-q');
    const odd = join(dir, 'x\ny');
    mkdirSync(odd);
    git(odd, 'init', '-q');
    git(odd, 'commit', '-q', '--allow-empty', '-m', 's');
    git(dir, 'add', 'x\ny');
    expect(check()).toMatch(/^in submodule `x\ny`: git names a path with a line break/);
  });

  it('reads every setting after a value with a NUL byte in it (git cuts the value there; the pairs stay aligned)', () => {
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git/config'), '[core]\n\tabbrev = 7\0local\0x\n\tfsmonitor = x\n', {
      flag: 'a',
    });
    expect(check()).toContain('`core.fsmonitor`');
  });

  it('checks the submodules of a work tree that does not contain the workspace (`core.worktree`)', () => {
    git(dir, 'init', '-q');
    mkdirSync(join(dir, 'wt/sub'), { recursive: true });
    git(join(dir, 'wt/sub'), 'init', '-q');
    git(join(dir, 'wt/sub'), 'commit', '-q', '--allow-empty', '-m', 's');
    git(dir, 'config', 'core.worktree', '../wt');
    git(dir, 'add', 'sub');
    git(join(dir, 'wt/sub'), 'config', 'diff.external', 'x');
    expect(check()).toMatch(/^in submodule `sub`: .*`diff\.external`/);
  });

  it('passes when git is not on PATH (nothing can run it), and withholds for a workspace that does not exist', () => {
    expect(check(dir, { ...process.env, PATH: join(dir, 'empty') })).toBeUndefined();
    expect(check(join(dir, 'missing'))).toMatch(/does not exist/);
  });

  it('asks git once per check, whatever the number of git commands in the call', () => {
    git(dir, 'init', '-q');
    const once = fsProgramCheck(dir);
    expect(once('git')).toBeUndefined();
    git(dir, 'config', 'core.fsmonitor', 'x');
    expect(once('git')).toBeUndefined(); // the same call: answered already
    expect(fsProgramCheck(dir)('git')).toContain('`core.fsmonitor`');
  });
});
