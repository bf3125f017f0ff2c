/**
 * The sandbox's resource limits, attacked with real processes (issue 27: `sort /dev/zero`, `grep -f /dev/zero`
 * and a `while … & done` fork loop each took the machine's memory or process table for up to 600 s). Each is
 * ended by a limit, the call returns, and no process of it is left on the host. Counts and explicit timeouts
 * only: nothing here measures time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLimits, ulimitCommand } from '../../../src/host/sandbox/limits.js';
import { bwrapArgs } from '../../../src/host/sandbox/mounts.js';
import { processesWith, token, world, type World } from './helpers.js';

let w: World;
beforeAll(() => {
  w = world('limits-');
});
afterAll(() => w.remove());

const MiB = 1024 ** 2;
const root = process.getuid?.() === 0;
const RUNNER_FDS = ['--json-status-fd', '--seccomp'];

describe('memory', () => {
  it.each([
    ['sort /dev/zero', 'sort: memory exhausted'],
    ['grep -f /dev/zero README.md', 'grep: memory exhausted'],
  ])('%s fails on the address-space limit instead of filling memory', async (command, message) => {
    const r = await w.run({
      command: { script: command },
      timeoutMs: 60_000,
      limits: { memoryBytes: 256 * MiB },
    });
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(2);
    expect(r.output).toContain(message);
  });
});

describe('processes', () => {
  it('a fork loop gets fewer processes than the limit, and they end with the call', async () => {
    const mark = token();
    const r = await w.run({
      command: { script: `for i in $(seq 300); do sleep 3600.${mark} & echo started; done` },
      timeoutMs: 60_000,
      limits: { processes: 32 },
    });
    // bash gives up when fork keeps failing (exit 254): the loop ends by the limit, not by the timeout.
    expect(r.timedOut).toBe(false);
    expect(r.output).toContain('Resource temporarily unavailable');
    const started = r.output.match(/^started$/gm)?.length ?? 0;
    expect(started).toBeGreaterThan(10);
    expect(started).toBeLessThan(32);
    expect(processesWith(`3600.${mark}`)).toEqual([]);
  });

  it('an endless fork loop is held by the limit, ended by the timeout, and leaves no process', async () => {
    const mark = token();
    const r = await w.run({
      command: { script: `while :; do sleep 3600.${mark} & done` },
      timeoutMs: 3_000,
      limits: { processes: 32 },
    });
    expect(r.timedOut).toBe(true);
    expect(r.output).toContain('Resource temporarily unavailable');
    expect(processesWith(`3600.${mark}`)).toEqual([]);
  });

  it.runIf(root)('a root host leaves no cgroup behind', async () => {
    const r = await w.run({ command: { script: 'cat /proc/self/cgroup' }, timeoutMs: 20_000 });
    expect(r.limits).toBe('rlimit+cgroup');
    const base = '/sys/fs/cgroup/pids';
    const left = existsSync(base)
      ? readdirSync(base).filter((f) => f.startsWith(`dsh-sandbox-${process.pid}-`))
      : [];
    expect(left).toEqual([]);
  });

  // What a host that is not root relies on: in the user namespace bwrap makes, RLIMIT_NPROC counts the call's
  // own processes. Run as `nobody` with nobody's other processes outside: the call still gets its full limit,
  // and no more.
  it.runIf(root)(
    'for a user host, the process limit counts the call alone (user namespace)',
    () => {
      const outside = Array.from({ length: 40 }, () =>
        spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sleep', '60'], {
          stdio: 'ignore',
        }),
      );
      // A workspace `nobody` can reach whatever the checkout's folder allows (under /tmp, which bwrap re-binds).
      const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-nproc-')));
      try {
        chmodSync(workspace, 0o755);
        const limits = resolveLimits({ processes: 24 });
        const args = [
          ...bwrapArgs({
            workspace,
            hidden: [],
            tmpBytes: limits.tmpBytes,
            // Without the runner's status and seccomp descriptors.
          }).filter((a, i, all) => !RUNNER_FDS.includes(a) && !RUNNER_FDS.includes(all[i - 1]!)),
          '--',
          '/bin/bash',
          '-c',
          `${ulimitCommand(limits)}; for i in $(seq 100); do sleep 20 & echo started; done 2>/dev/null`,
        ];
        const run = spawnSync(
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', 'bwrap', ...args],
          {
            encoding: 'utf8',
            timeout: 60_000,
          },
        );
        expect(run.stderr).not.toMatch(/^bwrap:/m);
        const started = run.stdout.match(/^started$/gm)?.length ?? 0;
        expect(started).toBeGreaterThan(15);
        expect(started).toBeLessThan(24);
      } finally {
        for (const child of outside) child.kill('SIGKILL');
        rmSync(workspace, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('file size', () => {
  it('a write past the file limit ends the writer with SIGXFSZ (exit 128 + 25)', async () => {
    const r = await w.run({
      command: { script: 'head -c 2M /dev/zero > /tmp/f; echo "rc=$?"; stat -c %s /tmp/f' },
      timeoutMs: 20_000,
      limits: { fileBytes: 1 * MiB },
    });
    expect(r.output).toContain('rc=153');
    expect(r.output).toContain(`${MiB}\n`);
  });
});

describe('the limits themselves', () => {
  it('are in force inside, soft and hard', async () => {
    const r = await w.run({
      command: {
        script:
          'ulimit -Sv; ulimit -Hv; ulimit -Su; ulimit -Hu; ulimit -Sf; ulimit -Hf; ulimit -c; ulimit -Hv unlimited || echo cannot-raise',
      },
      timeoutMs: 20_000,
      limits: { memoryBytes: 512 * MiB, processes: 50, fileBytes: 4 * MiB },
    });
    // bash reports -v in KiB and -f in 1024-byte blocks.
    expect(r.output.split('\n').slice(0, 7)).toEqual(['524288', '524288', '50', '50', '4096', '4096', '0']);
    expect(r.output).toContain('cannot-raise');
  });

  it('hold for an argument vector too (the bash that set them execs it)', async () => {
    const r = await w.run({
      command: { argv: ['bash', '-c', 'ulimit -u; ulimit -Hv'] },
      timeoutMs: 20_000,
      limits: { memoryBytes: 256 * MiB, processes: 40 },
    });
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe('40\n262144\n');
  });

  it('come before anything of the script: a first line that does not parse runs nothing', async () => {
    const r = await w.run({
      command: { script: 'echo ran-$((1 + 1)); )\necho ran-$((2 + 1))' },
      timeoutMs: 20_000,
    });
    expect(r.exitCode).toBe(2);
    expect(r.output).not.toMatch(/ran-[23]/);
    expect(r.output).toContain('syntax error');
  });

  it("keep the script's line numbers", async () => {
    const r = await w.run({ command: { script: 'echo "$LINENO"\necho "$LINENO $0"' }, timeoutMs: 20_000 });
    expect(r.output).toBe('1\n2 bash\n');
  });

  it('are whole KiB for bash, never 0', () => {
    const limits = resolveLimits({ memoryBytes: 1000, fileBytes: 5 * 1024 + 1023 });
    expect(ulimitCommand(limits)).toBe('ulimit -HS -v 1 -u 128 -f 5 -c 0 || exit 126');
  });

  it('reject a limit that is not a positive integer', () => {
    expect(() => resolveLimits({ processes: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ memoryBytes: 1.5 })).toThrow(/memoryBytes/);
  });
});
