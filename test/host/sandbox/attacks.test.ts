/**
 * A red team's attacks on the limits as the command's own bash sets them (`ulimit` on the script's first line).
 * The first groups each reproduced a finding on the commit that introduced it (1347bd0: the caller's variables
 * reaching the host's processes and bash's start, memory held in memfds, a bash checked on one path and run on
 * another, `exec "$@"` taking options, a leaked cgroup, a host hard limit failing the call); the `held` groups are
 * attacks that did not work. As root the calls take the cgroup path; the user-host cases run a copy of the built
 * module as `nobody` (setpriv), as bench/sandbox.bench.mjs does.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSandboxed, type SandboxOutcome, type SandboxRequest } from '../../../src/host/sandbox/index.js';
import { world, type World } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const root = process.getuid?.() === 0;
const MiB = 1024 ** 2;
const hasGcc = spawnSync('gcc', ['--version']).status === 0;
const hasPython = existsSync('/usr/bin/python3');

let w: World;
beforeAll(() => {
  w = world('redteam-');
});
afterAll(() => w.remove());

/** One call as the test's host user (root here: the cgroup path); a throw is returned as `threw`. */
async function call(request: Omit<SandboxRequest, 'workspace' | 'timeoutMs'> & { workspace?: string }) {
  try {
    return await runSandboxed({
      workspace: w.workspace,
      timeoutMs: 20_000,
      ...request,
      hostEnv: { ...process.env, HOME: w.home, ...request.hostEnv },
    });
  } catch (error) {
    return { kind: 'threw', error: String(error) } as const;
  }
}

/** The call's cgroups this process left behind (root host). */
function leftCgroups(): string[] {
  const base = '/sys/fs/cgroup/pids';
  return existsSync(base) ? readdirSync(base).filter((f) => f.startsWith(`dsh-sandbox-${process.pid}-`)) : [];
}

/**
 * A user host: a copy of the built sandbox module run by `nobody` (setpriv), on a workspace nobody can read.
 * Returns the outcome, or `{ kind: 'threw' }`.
 */
function callAsNobody(request: Record<string, unknown>): SandboxOutcome | { kind: 'threw'; error: string } {
  const copy = mkdtempSync(join(tmpdir(), 'dsh-redteam-user-'));
  try {
    cpSync(join(ROOT, 'dist', 'host', 'sandbox'), join(copy, 'sandbox'), { recursive: true });
    mkdirSync(join(copy, 'workspace'));
    writeFileSync(
      join(copy, 'run.mjs'),
      `const { runSandboxed } = await import('./sandbox/index.js');
const request = JSON.parse(process.argv[2]);
const out = await runSandboxed({ workspace: ${JSON.stringify(join(copy, 'workspace'))}, timeoutMs: 20000, ...request })
  .catch((e) => ({ kind: 'threw', error: String(e) }));
process.stdout.write(JSON.stringify(out));`,
    );
    spawnSync('chmod', ['-R', 'a+rX', copy]);
    chmodSync(copy, 0o755);
    const run = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        join(copy, 'run.mjs'),
        JSON.stringify(request),
      ],
      { encoding: 'utf8', cwd: copy, env: { PATH: process.env.PATH, HOME: '/nonexistent' }, timeout: 60_000 },
    );
    if (run.status !== 0) throw new Error(`runner failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as SandboxOutcome;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Prints `L=<hard RLIMIT_AS>` from wherever it runs: `L=unlimited` means it ran before the limits. */
const PROBE = 'echo L=$(ulimit -Hv)';

describe("the caller's variables reach neither the host's processes nor bash's start", () => {
  it.runIf(hasGcc)(
    'LD_PRELOAD from the workspace is refused, or at least runs nowhere unlimited',
    async () => {
      const so = join(w.workspace, 'evil.so');
      const marker = join(w.base, 'escaped-to-host');
      const src = join(w.base, 'evil.c');
      writeFileSync(
        src,
        `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
__attribute__((constructor)) static void pre(void) {
  struct rlimit r; getrlimit(RLIMIT_AS, &r);
  char exe[256] = {0}; readlink("/proc/self/exe", exe, sizeof exe - 1);
  FILE *f = fopen(getenv("RT_MARKER"), "a"); if (f) { fprintf(f, "%s\\n", exe); fclose(f); }
  fprintf(stderr, "PRELOAD in %s RLIMIT_AS=%s\\n", exe, r.rlim_max == RLIM_INFINITY ? "unlimited" : "limited");
}`,
      );
      expect(spawnSync('gcc', ['-shared', '-fPIC', '-o', so, src]).status).toBe(0);
      const r = await call({
        command: { script: 'echo script' },
        env: { LD_PRELOAD: so, RT_MARKER: marker },
      });
      // On 1347bd0: it runs in /usr/bin/dash and /usr/bin/bwrap on the host (as root: before the cgroup join, with
      // every capability; it wrote `marker`, a host file outside the sandbox), then in the sandbox's bash before
      // its `ulimit`.
      expect(r.kind).toBe('ran');
      expect(r.kind === 'ran' ? r.output : r).not.toMatch(/RLIMIT_AS=unlimited/);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.runIf(root)('(user host) SHELLOPTS=xtrace with PS4 runs a command substitution before `ulimit`', () => {
    const r = callAsNobody({
      command: { script: 'true' },
      env: { SHELLOPTS: 'xtrace', PS4: '$(echo L=$(ulimit -Hv) >&2)+ ' },
    });
    // On 1347bd0: "L=unlimited\n+ ulimit -HS -v 2097152 …" — bash expands PS4 to trace the ulimit line, before it
    // runs it. (A root host's bash does not import PS4, so this is the user host's.)
    expect(r.kind).toBe('ran');
    expect(JSON.stringify(r)).not.toMatch(/L=unlimited/);
  });

  it('BASHOPTS=extdebug makes bash source the debugger start file before the command', async () => {
    const r = await call({ command: { script: 'true' }, env: { BASHOPTS: 'extdebug' } });
    // On 1347bd0: "bash: /usr/share/bashdb/bashdb-main.inc: No such file or directory" — where bashdb is
    // installed, that file runs before `ulimit`.
    expect(r.kind).toBe('ran');
    expect(JSON.stringify(r)).not.toMatch(/bashdb|debugger/);
  });

  it('POSIXLY_CORRECT (or SHELLOPTS=posix) turns on POSIX mode: `ulimit -f` counts 512-byte blocks', async () => {
    // The README: "outside POSIX mode, which the sandbox's environment never turns on". A 768 KiB file under a
    // 1 MiB limit must be written; in POSIX mode the limit is 512 KiB and the write gets SIGXFSZ (rc=153).
    const r = await call({
      command: { script: 'head -c 786432 /dev/zero > /tmp/f; echo "rc=$?"' },
      env: { POSIXLY_CORRECT: '1' },
      limits: { fileBytes: 1 * MiB },
    });
    expect(r.kind === 'ran' && r.output).toBe('rc=0\n');
  });
});

describe('memory the address-space limit would not count', () => {
  it.runIf(hasPython)(
    'cannot be held in memfds (write(), never mapped): memfd_create is refused',
    async () => {
      const script = `/usr/bin/python3 -c '
import os
b = b"x" * (1 << 20)
fds = []
for i in range(12):
    fd = os.memfd_create("h")
    for _ in range(60): os.write(fd, b)
    fds.append(fd)
print("held", 12 * 60, "MiB")
'`;
      const r = await call({ command: { script }, limits: { memoryBytes: 64 * MiB, fileBytes: 64 * MiB } });
      // On 1347bd0: "held 720 MiB" under a 64 MiB RLIMIT_AS (the host's Shmem grows by as much). With fds up to
      // RLIMIT_NOFILE and `processes` processes, a call can take the machine's memory until its timeout, which is
      // what the limits are for (issue 27). (Not tried: SysV shm in the call's IPC namespace, pipe buffers.)
      expect(r.kind === 'ran' && r.output).not.toMatch(/held 720 MiB/);
    },
  );
});

describe('memory the address-space limit would not count, System V', () => {
  it('cannot be held in a shared memory segment: shmget is refused', async () => {
    const r = await call({ command: { script: 'ipcmk -M 1048576; echo "rc=$?"' } });
    expect(r.kind === 'ran' && r.output).toMatch(/Operation not permitted[\s\S]*rc=1\n$/);
  });
});

describe('the bash checked is the bash run', () => {
  it("a PATH entry whose meaning differs inside the sandbox (/proc/self/cwd) runs the workspace's bash, unlimited", async () => {
    // Host view: node's cwd is `/`, so /proc/self/cwd/usr/bin/bash is /usr/bin/bash, outside the workspace:
    // usable. Sandbox view: bwrap's --chdir makes it <workspace>/usr/bin/bash. The checked path is handed to bwrap
    // as is (not its real path).
    mkdirSync(join(w.workspace, 'usr', 'bin'), { recursive: true });
    writeFileSync(
      join(w.workspace, 'usr', 'bin', 'bash'),
      '#!/bin/sh\necho "workspace bash, L=$(ulimit -Hv)"\n',
      {
        mode: 0o755,
      },
    );
    const cwd = process.cwd();
    process.chdir('/');
    try {
      const r = await call({
        command: { script: 'echo real' },
        hostEnv: { PATH: '/proc/self/cwd/usr/bin:/usr/bin:/bin' },
      });
      // On 1347bd0: "workspace bash, L=unlimited".
      expect(JSON.stringify(r)).not.toMatch(/workspace bash/);
    } finally {
      process.chdir(cwd);
      rmSync(join(w.workspace, 'usr'), { recursive: true, force: true });
    }
  });
});

describe('the argv form is `exec -- "$@"`', () => {
  it('an argv[0] beginning with "-" is an option of bash\'s exec, not a program', async () => {
    const r = await call({ command: { argv: ['-a', 'renamed', '/bin/sh', '-c', 'echo "argv0=$0"'] } });
    // On 1347bd0: "argv0=renamed" (exec -a). ['-c', 'env'] runs env with an emptied environment, ['--help']
    // prints exec's help. Limits still hold (it is after ulimit); the argv is just not run as given.
    expect(r.kind === 'ran' && r.output).not.toBe('argv0=renamed\n');
  });
});

describe.runIf(root)('a request that cannot be spawned leaves no pids cgroup behind (root host)', () => {
  it.each([
    ['a NUL byte in the script', { script: 'echo a\0b' }],
    ['a script over 128 KiB (E2BIG)', { script: `#${'x'.repeat(140_000)}` }],
  ])('%s', async (_, command) => {
    const before = leftCgroups();
    const r = await call({ command });
    // On 1347bd0: runSandboxed rejects (spawn throws synchronously: ERR_INVALID_ARG_VALUE, E2BIG) after
    // createPidsCgroup, so endPidsCgroup never runs: one cgroup folder per call, for as long as the machine runs.
    // The bash tool turns the throw into an error result, so an agent can repeat it.
    const leaked = leftCgroups().filter((f) => !before.includes(f));
    for (const f of leaked) rmdirSync(join('/sys/fs/cgroup/pids', f));
    // A throw is the contract's answer to a malformed request; the leak is the finding.
    expect({ outcome: r.kind, leaked }).toEqual({ outcome: r.kind, leaked: [] });
  });
});

describe('held: nothing of the first line runs before the limits', () => {
  const probes: Record<string, string> = {
    'here-document': `cat <<EOF\n$(${PROBE})\nEOF`,
    'line continuation': `\\\n${PROBE}`,
    comment: `# $(${PROBE})\n${PROBE}`,
    'command substitution on the line': `x=$(${PROBE}); echo "$x"`,
    'process substitution': `cat <(${PROBE})`,
    // The alias exists only once the line runs, after its `ulimit` was parsed (and run).
    'alias (expand_aliases on the line)': `shopt -s expand_aliases; alias ulimit='echo L=unlimited;:'\necho done`,
    'ulimit shadowed by a function': `ulimit() { :; }; ${PROBE}; command ulimit -Hv`,
    'background first': `${PROBE} & wait`,
    arithmetic: `(( $(${PROBE} >&2; echo 1) ))`,
    'case in comsub': `echo $(case x in x) ${PROBE};; esac)`,
    CRLF: `${PROBE}\r\n${PROBE}\r\n`,
    'long line': `${' '.repeat(100_000)}${PROBE}`,
    'lone surrogate': `\uD800 ; ${PROBE}`,
    'trap EXIT': `trap '${PROBE}' EXIT`,
    'unterminated here-document': `cat <<EOF\n$(${PROBE})`,
  };
  it.each(Object.entries(probes))('%s', async (_, script) => {
    const r = await call({ command: { script } });
    expect(r.kind).toBe('ran');
    expect(r.kind === 'ran' && r.output).not.toMatch(/L=unlimited/);
  });

  it.each([';', '&', '|', ')', '}', '||', '&&', 'esac;', 'fi;', 'done;', 'then'])(
    'a script starting with %s is a syntax error of the whole first line: nothing runs',
    async (start) => {
      const r = await call({ command: { script: `${start} ${PROBE}\n${PROBE}` } });
      expect(r.kind === 'ran' && r.exitCode).toBe(2);
      expect(r.kind === 'ran' && r.output).not.toMatch(/L=(\d|unlimited)/);
    },
  );

  it.each(['', ' \t\n \n', '#', '\n'])(
    'an empty or blank script (%j) runs the limits only',
    async (script) => {
      const r = await call({ command: { script } });
      expect(r.kind === 'ran' && r.exitCode).toBe(0);
    },
  );
});

describe('held: the limits cannot be raised or left', () => {
  const script = [
    'ulimit -Hv unlimited 2>/dev/null; echo "ulimit rc=$?"',
    'prlimit --pid $$ --as=unlimited:unlimited 2>/dev/null; echo "prlimit rc=$?"',
    ...(hasPython
      ? [
          `/usr/bin/python3 -c 'import resource as r
for n in ("RLIMIT_AS","RLIMIT_NPROC","RLIMIT_FSIZE","RLIMIT_CORE"):
    try: r.setrlimit(getattr(r,n),(r.RLIM_INFINITY,r.RLIM_INFINITY)); print(n,"RAISED")
    except Exception as e: print(n,"refused")'`,
        ]
      : []),
    'grep -E "^(NoNewPrivs|CapEff)" /proc/self/status',
    'unshare -U true 2>/dev/null; echo "unshare rc=$?"',
    'echo $$ > /sys/fs/cgroup/pids/cgroup.procs 2>/dev/null; echo "cgroup move rc=$?"',
    'su -c "ulimit -Hv" </dev/null >/dev/null 2>&1; echo "su rc=$?"',
  ].join('\n');
  const check = (output: string): void => {
    expect(output).toContain('ulimit rc=1');
    expect(output).toContain('prlimit rc=1');
    expect(output).not.toContain('RAISED');
    expect(output).toMatch(/CapEff:\s+0+\n/);
    expect(output).toMatch(/NoNewPrivs:\s+1/);
    expect(output).toContain('unshare rc=1');
    expect(output).toContain('cgroup move rc=1');
    expect(output).not.toContain('su rc=0');
  };
  it('root host (cgroup)', async () => {
    const r = await call({ command: { script } });
    check(r.kind === 'ran' ? r.output : JSON.stringify(r));
  });
  it.runIf(root)('user host (nobody)', () => {
    const r = callAsNobody({ command: { script } });
    check(r.kind === 'ran' ? r.output : JSON.stringify(r));
  });
});

describe('a host hard limit below the requested one', () => {
  it("is the call's limit: the script runs under it (asking for more would only fail)", () => {
    const runner = join(w.base, 'lowfsize.mjs');
    writeFileSync(
      runner,
      `const { runSandboxed } = await import(${JSON.stringify(join(ROOT, 'dist/host/sandbox/index.js'))});
process.stdout.write(JSON.stringify(await runSandboxed({ workspace: ${JSON.stringify(w.workspace)},
  command: { script: 'echo "script-ran $(ulimit -Hf)"' }, timeoutMs: 20000 })));`,
    );
    const run = spawnSync('prlimit', ['--fsize=1048576:1048576', process.execPath, runner], {
      encoding: 'utf8',
    });
    const r = JSON.parse(run.stdout) as SandboxOutcome;
    expect(r).toMatchObject({ kind: 'ran', exitCode: 0, output: 'script-ran 1024\n' });
  });
});

describe('held: the bash lookup', () => {
  it.each([
    ['a relative entry', (ws: string) => `bin:${ws}/../${ws.split('/').pop()}/bin:/usr/bin:/bin`],
    ['an entry with .. into the workspace', (ws: string) => `/usr/../${ws.slice(1)}/bin:/usr/bin:/bin`],
  ])('%s is passed over', async (_, path) => {
    mkdirSync(join(w.workspace, 'bin'), { recursive: true });
    writeFileSync(join(w.workspace, 'bin', 'bash'), '#!/bin/sh\necho workspace-bash\n', { mode: 0o755 });
    try {
      const r = await call({ command: { script: 'echo real' }, hostEnv: { PATH: path(w.workspace) } });
      expect(r.kind === 'ran' && r.output).toBe('real\n');
    } finally {
      rmSync(join(w.workspace, 'bin'), { recursive: true, force: true });
    }
  });

  it('a symlink outside the workspace into it is passed over (real path checked)', async () => {
    const outside = join(w.base, 'linkbin');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(w.workspace, 'evilbash'), '#!/bin/sh\necho workspace-bash\n', { mode: 0o755 });
    rmSync(join(outside, 'bash'), { force: true });
    spawnSync('ln', ['-s', join(w.workspace, 'evilbash'), join(outside, 'bash')]);
    const r = await call({ command: { script: 'echo real' }, hostEnv: { PATH: `${outside}:/usr/bin:/bin` } });
    expect(r.kind === 'ran' && r.output).toBe('real\n');
    expect(realpathSync(join(outside, 'bash'))).toBe(join(w.workspace, 'evilbash'));
  });
});
