/**
 * Resource limits of a sandboxed call, and the two mechanisms that apply them.
 *
 * rlimits, always: the command's own bash sets soft and hard `RLIMIT_AS` (memory), `RLIMIT_NPROC` (processes and
 * threads), `RLIMIT_FSIZE` (file size) and `RLIMIT_CORE=0` with its `ulimit` builtin ({@link ulimitCommand}),
 * before anything of the command runs, inside the sandbox. No program to start (a `prlimit` cost a process start
 * per call), no privilege, every Linux, and the command cannot raise a hard limit (no capabilities). They are set
 * inside: for a host that is not root, bwrap makes a user namespace, and from Linux 5.14 the kernel counts
 * `RLIMIT_NPROC` per user and namespace, so the limit bounds the call's own processes (set before bwrap, it would
 * bound the user's others too).
 *
 * A pids cgroup, as root only: the kernel never applies `RLIMIT_NPROC` to uid 0, so a root host puts the call in
 * a fresh child cgroup of its own (cgroup v1's `pids` hierarchy, or v2 where `pids` is delegated to the host's
 * cgroup) with `pids.max`, removed when the call ends. A root host without a writable pids cgroup has no process
 * limit, and the sandbox refuses to run there. cgroups are not used for a user host: creating one needs a
 * delegated subtree (systemd's `--user --scope`), which costs a D-Bus round trip per call and is not everywhere.
 *
 * Memory is bounded per process: a tree of `processes` processes can hold `processes × memoryBytes` in theory.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SandboxLimits } from './types.js';

/** The limits of a call that names none. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 2 * 1024 ** 3,
  processes: 128,
  fileBytes: 512 * 1024 ** 2,
  tmpBytes: 512 * 1024 ** 2,
});

/**
 * The defaults with the caller's overrides, each checked.
 * @throws RangeError for a limit that is not a positive safe integer
 */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`sandbox: limit ${name} must be a positive integer, got ${String(value)}`);
  }
  return limits;
}

/** The hard limits this process runs under (`/proc/self/limits`), in bytes and processes; Infinity where none. */
function ownHardLimits(): { memoryBytes: number; processes: number; fileBytes: number } {
  const hard = { memoryBytes: Infinity, processes: Infinity, fileBytes: Infinity };
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return hard;
  }
  const rows: Record<string, keyof typeof hard> = {
    'Max address space': 'memoryBytes',
    'Max processes': 'processes',
    'Max file size': 'fileBytes',
  };
  for (const line of text.split('\n')) {
    const key = Object.keys(rows).find((row) => line.startsWith(row));
    const value = key && line.slice(25).trim().split(/\s+/)[1];
    if (key && value && /^\d+$/.test(value)) hard[rows[key]!] = Number(value);
  }
  return hard;
}

/**
 * The limits a call runs under: the requested ones, lowered to the hard limits this process already has (the
 * sandbox inherits them and no process there can raise them, so asking for more would only fail).
 */
export function callLimits(limits: SandboxLimits): SandboxLimits {
  const hard = ownHardLimits();
  return {
    ...limits,
    memoryBytes: Math.min(limits.memoryBytes, hard.memoryBytes),
    processes: Math.min(limits.processes, hard.processes),
    fileBytes: Math.min(limits.fileBytes, hard.fileBytes),
  };
}

/**
 * The bash command that applies the rlimits, in the command's own shell, before the command: bash's `ulimit`
 * counts `-v` and `-f` in KiB (outside POSIX mode, which the sandbox's environment never turns on), so those
 * limits are rounded down to whole KiB (at least 1). A limit that cannot be set ends the call with exit 126
 * before the command runs.
 */
export function ulimitCommand(limits: SandboxLimits): string {
  const kib = (bytes: number): number => Math.max(1, Math.floor(bytes / 1024));
  return `ulimit -HS -v ${kib(limits.memoryBytes)} -u ${limits.processes} -f ${kib(limits.fileBytes)} -c 0 || exit 126`;
}

/** A call's own pids cgroup. */
export interface PidsCgroup {
  /** The cgroup's folder. */
  dir: string;
  /** Its `cgroup.procs`: a process that writes its pid here joins before it can fork. */
  procs: string;
}

/** The folder of this process's cgroup that has the `pids` controller, or undefined. */
function ownPidsCgroup(): string | undefined {
  let mountinfo: string;
  let membership: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    membership = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  const mounts = mountinfo.split('\n').map((line) => {
    const [before = '', after = ''] = line.split(' - ');
    const fields = before.split(' ');
    const [fstype = '', , superOptions = ''] = after.split(' ');
    return { root: fields[3] ?? '', point: fields[4] ?? '', fstype, superOptions };
  });
  const lines = membership.split('\n').map((line) => {
    const [hierarchy = '', controllers = '', ...rest] = line.split(':');
    return { hierarchy, controllers: controllers.split(','), path: rest.join(':') };
  });
  const under = (mount: { root: string; point: string }, path: string): string =>
    join(mount.point, path.startsWith(mount.root) ? path.slice(mount.root.length) : path);
  // cgroup v1: the hierarchy whose controllers include pids.
  const v1 = lines.find((l) => l.controllers.includes('pids'));
  const v1Mount = mounts.find((m) => m.fstype === 'cgroup' && m.superOptions.split(',').includes('pids'));
  if (v1 && v1Mount) return under(v1Mount, v1.path);
  // cgroup v2: the unified hierarchy, usable when pids is delegated to our cgroup's children.
  const v2 = lines.find((l) => l.hierarchy === '0');
  const v2Mount = mounts.find((m) => m.fstype === 'cgroup2');
  if (v2 && v2Mount) return under(v2Mount, v2.path);
  return undefined;
}

/**
 * Makes a fresh pids cgroup for one call, limited to `processes`.
 * @returns the cgroup, or a sentence saying why none could be made
 */
export function createPidsCgroup(processes: number): PidsCgroup | { error: string } {
  const parent = ownPidsCgroup();
  if (parent === undefined) return { error: 'this system has no pids cgroup controller' };
  const dir = join(parent, `dsh-sandbox-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    mkdirSync(dir);
  } catch (error) {
    return { error: `cannot create a cgroup under ${parent}: ${(error as Error).message}` };
  }
  try {
    if (!existsSync(join(dir, 'pids.max')))
      throw new Error(`the pids controller is not enabled under ${parent}`);
    writeFileSync(join(dir, 'pids.max'), String(processes));
    return { dir, procs: join(dir, 'cgroup.procs') };
  } catch (error) {
    rmdirSync(dir);
    return { error: `cannot limit processes with a cgroup: ${(error as Error).message}` };
  }
}

/** The pids in a cgroup (empty when it is gone). */
function members(cgroup: PidsCgroup): number[] {
  try {
    return readFileSync(cgroup.procs, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** SIGKILL to every process in a call's cgroup; returns how many were listed. */
export function killMembers(cgroup: PidsCgroup): number {
  const left = members(cgroup);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  return left.length;
}

/**
 * Ends a call's cgroup: kills any process still in it (a call's processes belong to the call: the PID namespace
 * normally ends them all before this runs) and waits until it is empty, then removes the folder. The kernel
 * refuses the removal (EBUSY) for a moment after the last process left, so that part is retried in the
 * background: the call's promise, that nothing it started still runs, holds once the cgroup is empty.
 * @param attempts how many 1 ms waits for the cgroup to empty, and for its removal
 * @returns whether the cgroup emptied
 */
export async function endPidsCgroup(cgroup: PidsCgroup, attempts = 5000): Promise<boolean> {
  // The last processes leave the cgroup within a millisecond or two of the call's end: poll at that grain.
  const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
  let empty = false;
  for (let i = 0; i < attempts && !empty; i++) {
    empty = killMembers(cgroup) === 0;
    if (!empty) await pause();
  }
  const remove = async (): Promise<void> => {
    for (let i = 0; i < attempts; i++) {
      try {
        rmdirSync(cgroup.dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EBUSY') return;
      }
      await pause();
    }
  };
  void remove();
  return empty;
}
