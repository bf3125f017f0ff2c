/**
 * git that opens another repository (issue 27 item 5), with real git: a hostile repository encloses the
 * workspace's and sets `core.fsmonitor` to a program that writes a marker. Run bare, an allowed-looking read
 * (`git rev-parse --show-superproject-working-tree`) runs that program; plan denies the option; and inside the
 * sandbox the program still runs (git starts it) but cannot write. `--alternate-refs` runs git in an alternate
 * object store's repository, and `--resolve-git-dir` reads a repository at a path: plan denies both.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicySources } from '../../../src/compile/index.js';
import { SCRATCH_HIDDEN, world, type World } from './helpers.js';

const plan = compilePolicies((await loadPolicySources([])).documents).get('plan')!;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

let w: World;
let outer: string;
let workspace: string;
let marker: string;
const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: w.home, GIT_CONFIG_NOSYSTEM: '1', GIT_TRACE: '2' },
  });

beforeAll(() => {
  w = world('git-');
  outer = join(w.base, 'outer');
  workspace = join(outer, 'workspace');
  marker = join(w.base, 'MARKER');
  mkdirSync(workspace, { recursive: true });
  expect(git(outer, 'init', '-q').status).toBe(0);
  // The hostile enclosing repository: its fsmonitor says it ran (on stderr) and writes a marker beside it.
  writeFileSync(
    join(w.base, 'fsmonitor.sh'),
    `#!/bin/sh\necho FSMONITOR-RAN >&2\necho ran > '${marker}'\nexit 1\n`,
    {
      mode: 0o755,
    },
  );
  expect(git(outer, 'config', 'core.fsmonitor', join(w.base, 'fsmonitor.sh')).status).toBe(0);
  expect(git(workspace, 'init', '-q').status).toBe(0);
  writeFileSync(join(workspace, 'a.txt'), 'a\n');
  expect(git(workspace, 'add', 'a.txt').status).toBe(0);
  expect(git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one').status).toBe(0);
});
afterAll(() => w.remove());

describe('rev-parse --show-superproject-working-tree', () => {
  const command = 'git rev-parse --show-superproject-working-tree';

  it("runs the enclosing repository's fsmonitor when run bare (the finding)", () => {
    const run = git(workspace, 'rev-parse', '--show-superproject-working-tree');
    expect(run.stderr).toMatch(/run_command: .*-C \.\. ls-files/);
    expect(existsSync(marker)).toBe(true);
  });

  it('is denied by plan, with the reason', () => {
    expect(decide(command)).toBe('deny');
    expect(decide('git rev-parse --show-toplevel')).toBe('allow');
  });

  // Reads a file planted outside the workspace: see SCRATCH_HIDDEN.
  it.skipIf(SCRATCH_HIDDEN)(
    'cannot write anything in the sandbox, though git still starts the program',
    async () => {
      rmSync(marker, { force: true });
      // rev-parse discards its child's stderr, so `git -C .. ls-files` (what it runs) shows the program running.
      const r = await w.run({
        workspace,
        command: { script: `${command}; echo "rc=$?"; git -C .. ls-files` },
        timeoutMs: 30_000,
      });
      expect(r.output).toContain('rc=0');
      expect(r.output).toContain('FSMONITOR-RAN');
      expect(r.output).toMatch(/MARKER: Read-only file system/);
      expect(existsSync(marker)).toBe(false);
    },
  );
});

describe('--alternate-refs and --resolve-git-dir', () => {
  it('--alternate-refs runs git in the alternate repository, and plan denies it on log, show, diff and blame', () => {
    const alternate = join(w.base, 'alternate');
    expect(git(w.base, 'init', '-q', alternate).status).toBe(0);
    writeFileSync(join(workspace, '.git/objects/info/alternates'), `${join(alternate, '.git/objects')}\n`);
    const run = git(workspace, 'log', '--alternate-refs', '--oneline');
    expect(run.stderr).toContain(`--git-dir=${join(alternate, '.git')} for-each-ref`);
    for (const sub of ['log', 'show', 'diff', 'blame a.txt'])
      expect(decide(`git ${sub} --alternate-refs`), sub).toBe('deny');
    expect(decide('git log --oneline')).toBe('allow');
  });

  it('--resolve-git-dir reads the repository at a path, and plan denies it', () => {
    const run = git(workspace, 'rev-parse', '--resolve-git-dir', join(outer, '.git'));
    expect(run.stdout).toBe(`${join(outer, '.git')}\n`);
    expect(git(workspace, 'rev-parse', '--resolve-git-dir', w.home).status).not.toBe(0);
    expect(decide(`git rev-parse --resolve-git-dir ../.git`)).toBe('deny');
  });
});
