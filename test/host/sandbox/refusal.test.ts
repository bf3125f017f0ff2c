/**
 * Where the sandbox cannot start, the command does not run at all: the runner refuses with a reason and how to
 * install what is missing (a mode turns this into a deny), and `sandboxSupport()` says the same for `doctor`.
 * A missing bwrap is simulated with a `PATH` without it; a bwrap that fails to set up, with a fake `bwrap` that
 * exits as the real one does when namespaces are not permitted.
 */
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_BWRAP, runSandboxed, sandboxSupport } from '../../../src/host/sandbox/index.js';
import { SCRATCH_HIDDEN, world, type World } from './helpers.js';

let w: World;
let noBwrap: string;
let failingBwrap: string;
beforeAll(() => {
  w = world('refuse-');
  // A PATH with the programs a command needs, but no bwrap.
  noBwrap = join(w.base, 'bin-no-bwrap');
  mkdirSync(noBwrap);
  for (const program of ['bash', 'touch', 'sh']) symlinkSync(`/usr/bin/${program}`, join(noBwrap, program));
  failingBwrap = join(w.base, 'bin-failing-bwrap');
  mkdirSync(failingBwrap);
  symlinkSync('/usr/bin/bash', join(failingBwrap, 'bash'));
  writeFileSync(
    join(failingBwrap, 'bwrap'),
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  chmodSync(join(failingBwrap, 'bwrap'), 0o755);
});
afterAll(() => w.remove());

describe('a missing bwrap', () => {
  it('refuses with the install hint, and the command does not run', async () => {
    const marker = join(w.base, 'ran');
    const outcome = await runSandboxed({
      workspace: w.workspace,
      command: { argv: ['touch', marker] },
      timeoutMs: 10_000,
      hostEnv: { PATH: noBwrap, HOME: w.home },
    });
    expect(outcome).toEqual({
      kind: 'refused',
      reason: 'bubblewrap (`bwrap`) is not on the PATH',
      howToInstall: INSTALL_BWRAP,
    });
    expect(INSTALL_BWRAP).toContain('apt-get install bubblewrap');
    expect(existsSync(marker)).toBe(false);
  });

  it('is what sandboxSupport() reports', async () => {
    expect(await sandboxSupport({ hostEnv: { PATH: noBwrap } })).toEqual({
      available: false,
      kind: 'bwrap',
      reason: 'bubblewrap (`bwrap`) is not on the PATH',
      howToInstall: INSTALL_BWRAP,
    });
  });
});

describe('a bwrap that cannot set up', () => {
  // Reads a file planted outside the workspace: see SCRATCH_HIDDEN.
  it.skipIf(SCRATCH_HIDDEN)('refuses with what bwrap said, and how to allow namespaces', async () => {
    const outcome = await runSandboxed({
      workspace: w.workspace,
      command: { script: 'echo ran' },
      timeoutMs: 10_000,
      hostEnv: { PATH: failingBwrap, HOME: w.home },
    });
    expect(outcome.kind).toBe('refused');
    if (outcome.kind !== 'refused') return;
    expect(outcome.reason).toMatch(
      /^the sandbox failed to start: bwrap: No permissions to create new namespace/,
    );
    expect(outcome.howToInstall).toMatch(/user namespaces/);
  });
});

describe('the bash that sets the limits', () => {
  // The runner's bash applies the limits before the command: one the workspace holds could skip them.
  const planted = (): string => {
    const bin = join(w.workspace, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'bash'), '#!/bin/sh\necho planted-bash-ran\n');
    chmodSync(join(bin, 'bash'), 0o755);
    return bin;
  };

  it('is never one of the workspace, even first on the PATH', async () => {
    const r = await w.run({
      command: { script: 'echo "limit $(ulimit -u)"' },
      timeoutMs: 20_000,
      limits: { processes: 77 },
      hostEnv: { PATH: `${planted()}:/usr/bin:/bin`, HOME: w.home },
    });
    expect(r.output).not.toContain('planted-bash-ran');
    expect(r.output).toContain('limit 77');
  });

  it('refuses when the workspace holds the only bash on the PATH', async () => {
    const bin = join(w.base, 'bin-bwrap-only');
    mkdirSync(bin);
    symlinkSync('/usr/bin/bwrap', join(bin, 'bwrap'));
    const outcome = await runSandboxed({
      workspace: w.workspace,
      command: { script: 'echo ran' },
      timeoutMs: 10_000,
      hostEnv: { PATH: `${planted()}:${bin}`, HOME: w.home },
    });
    expect(outcome).toMatchObject({
      kind: 'refused',
      reason: '`bash` is not on the PATH outside the workspace and the folders the sandbox hides',
    });
  });
});

describe('sandboxSupport() on this machine', () => {
  it('finds bwrap working (the CI installs it)', async () => {
    const support = await sandboxSupport();
    expect(support).toMatchObject({ available: true, kind: 'bwrap' });
    expect(support.limits).toBe(process.getuid?.() === 0 ? 'rlimit+cgroup' : 'rlimit');
  });
});

describe('a malformed request', () => {
  it('throws, as a programming error', async () => {
    await expect(
      runSandboxed({ workspace: w.workspace, command: { argv: [] }, timeoutMs: 1_000 }),
    ).rejects.toThrow(/no program/);
    await expect(
      runSandboxed({
        workspace: w.workspace,
        command: { argv: ['true'] },
        timeoutMs: 1_000,
        limits: { tmpBytes: -1 },
      }),
    ).rejects.toThrow(RangeError);
  });

  it('refuses a workspace that is not a folder', async () => {
    const outcome = await runSandboxed({
      workspace: join(w.base, 'missing'),
      command: { argv: ['true'] },
      timeoutMs: 1_000,
    });
    expect(outcome.kind).toBe('refused');
  });
});
