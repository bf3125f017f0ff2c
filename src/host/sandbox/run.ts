/**
 * Runs one command in the OS sandbox ({@link runSandboxed}), or refuses without running it.
 *
 * The command runs under `bwrap` (the filesystem of `mounts.ts`, its own mount, PID, IPC, UTS and network
 * namespaces, its own session, no capabilities, no Unix sockets: `seccomp.ts`), with `prlimit` applying the
 * rlimits first, and, for a root host, in a pids cgroup of its own (`limits.ts`), in the minimal environment of
 * `environment.ts`. The call ends with
 * the command; a timeout or an abort SIGKILLs bwrap, whose `--die-with-parent` kills the namespace's first
 * process, and the kernel then kills every other process of the namespace. The runner resolves only once they
 * are gone: nothing the call started outlives it, and its `/tmp` goes with its mount namespace.
 *
 * It refuses, and never runs the command bare, when the platform is not Linux, `bwrap` or `prlimit` is not on
 * the host's `PATH`, a root host cannot make a pids cgroup, or bwrap fails to set the sandbox up (bwrap reports
 * the command's exit on its status descriptor only once the command ran: without that report, the output is
 * bwrap's own error).
 * @module
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { sandboxEnvironment } from './environment.js';
import { createPidsCgroup, prlimitArgs, endPidsCgroup, resolveLimits, type PidsCgroup } from './limits.js';
import { bwrapArgs, hiddenFolders, isInside, SECCOMP_FD, STATUS_FD } from './mounts.js';
import { unixSocketFilter } from './seccomp.js';
import type { SandboxLimitKind, SandboxOutcome, SandboxRefused, SandboxRequest } from './types.js';
import { findProgram } from './which.js';

/** Output kept from a call that names no cap. */
export const SANDBOX_OUTPUT_CAP = 64 * 1024;

/** What to do when bubblewrap is not installed. */
export const INSTALL_BWRAP =
  'Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` ' +
  '(Fedora), `sudo pacman -S bubblewrap` (Arch).';

const INSTALL_PRLIMIT = 'Install util-linux, which has `prlimit`: `sudo apt-get install util-linux`.';

const ENABLE_USERNS =
  'bubblewrap needs unprivileged user namespaces: `sudo sysctl -w kernel.unprivileged_userns_clone=1` (older ' +
  'Debian), an AppArmor profile for bwrap or `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` ' +
  '(Ubuntu 24.04 and later); in a container, a seccomp profile that allows creating namespaces.';

const ROOT_CGROUP =
  'Run dsh-mode as a user other than root, or give it a writable pids cgroup (cgroup v1 `pids`, or v2 with ' +
  '`pids` in its cgroup.subtree_control).';

const OTHER_PLATFORM =
  'dsh-mode sandboxes commands on Linux only, with bubblewrap. Run it in a Linux VM or container, or use a mode ' +
  'that does not require a sandbox.';

/** A refusal, the form every failure to start takes. */
function refuse(reason: string, howToInstall: string): SandboxRefused {
  return { kind: 'refused', reason, howToInstall };
}

/** The spawn plan of a call, or why it cannot start. */
interface Prepared {
  kind: 'prepared';
  file: string;
  /** The seccomp program, written to bwrap's {@link SECCOMP_FD}. */
  filter: Buffer;
  args: string[];
  env: Record<string, string>;
  cgroup?: PidsCgroup;
  limits: SandboxLimitKind;
}

function prepare(request: SandboxRequest): Prepared | SandboxRefused {
  if (process.platform !== 'linux')
    return refuse(`there is no OS sandbox on ${process.platform}`, OTHER_PLATFORM);
  const hostEnv = request.hostEnv ?? process.env;
  const limits = resolveLimits(request.limits);
  const argv =
    'script' in request.command
      ? ['bash', '--norc', '--noprofile', '-c', request.command.script]
      : [...request.command.argv];
  if (argv.length === 0 || argv[0] === '') throw new TypeError('sandbox: the command has no program');
  const bwrap = findProgram('bwrap', hostEnv.PATH);
  if (bwrap === undefined) return refuse('bubblewrap (`bwrap`) is not on the PATH', INSTALL_BWRAP);
  const prlimit = findProgram('prlimit', hostEnv.PATH);
  if (prlimit === undefined) return refuse('`prlimit` (util-linux) is not on the PATH', INSTALL_PRLIMIT);
  let workspace: string;
  try {
    workspace = realpathSync(request.workspace);
    if (!statSync(workspace).isDirectory()) throw new Error('not a folder');
  } catch (error) {
    return refuse(`the workspace ${request.workspace} cannot be used: ${(error as Error).message}`, '');
  }
  const home = hostEnv.HOME ?? homedir();
  const hidden = hiddenFolders(home);
  if (['/tmp', ...hidden].some((folder) => isInside(prlimit, folder)))
    return refuse(`\`prlimit\` at ${prlimit} lies in a folder the sandbox hides`, INSTALL_PRLIMIT);
  const filter = unixSocketFilter();
  if (filter === undefined)
    return refuse(
      `there is no seccomp filter for the ${process.arch} architecture`,
      'Run dsh-mode on x86-64 or arm64.',
    );
  const root = process.getuid?.() === 0;
  const args = [
    ...bwrapArgs({ workspace, hidden, tmpBytes: limits.tmpBytes, userNamespace: !root }),
    '--',
    ...prlimitArgs(prlimit, limits),
    ...argv,
  ];
  const env = sandboxEnvironment(hostEnv, home, request.env);
  if (!root) return { kind: 'prepared', file: bwrap, args, env, filter, limits: 'rlimit' };
  const cgroup = createPidsCgroup(limits.processes);
  if ('error' in cgroup)
    return refuse(
      `running as root, where the kernel does not apply RLIMIT_NPROC, and ${cgroup.error}`,
      ROOT_CGROUP,
    );
  // The shell joins the cgroup and becomes bwrap, so nothing of the call ever runs outside it.
  const join = ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procs, bwrap, ...args];
  return { kind: 'prepared', file: '/bin/sh', args: join, env, filter, cgroup, limits: 'rlimit+cgroup' };
}

/** Whether a process (by host pid) still runs: present and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself hold ") ".
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Waits until the namespace's first process is gone. The kernel lets it finish exiting only after every other
 * process of its PID namespace has: when it is gone (or a zombie), the whole tree is.
 */
async function namespaceGone(pid: number, attempts = 500): Promise<void> {
  for (let i = 0; i < attempts && alive(pid); i++) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Runs a command in the sandbox.
 * @returns `ran` with its exit code and output, or `refused` (the command never started) with the reason and
 *   how to install what is missing
 * @throws TypeError or RangeError for a malformed request (no program, a bad limit, a credential in `env`)
 */
export async function runSandboxed(request: SandboxRequest): Promise<SandboxOutcome> {
  const prepared = prepare(request);
  if (prepared.kind === 'refused') return prepared;
  const cap = request.maxOutputBytes ?? SANDBOX_OUTPUT_CAP;
  const { file, args, env, filter, cgroup } = prepared;
  const outcome = await new Promise<SandboxOutcome>((resolve) => {
    const child = spawn(file, args, { cwd: '/', env, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    // bwrap reads the program to its end before it sets the sandbox up; a bwrap that died first closed it.
    const seccomp = child.stdio[SECCOMP_FD] as NodeJS.WritableStream;
    seccomp.on('error', () => {});
    seccomp.end(filter);
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    const collect = (chunk: Buffer): void => {
      const room = cap - kept;
      if (room > 0) {
        chunks.push(room >= chunk.length ? chunk : chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
      }
      dropped += Math.max(0, chunk.length - room);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    let status = '';
    (child.stdio[STATUS_FD] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      status += chunk.toString('utf8');
    });
    let ending: 'timeout' | 'cancel' | undefined;
    const kill = (why: 'timeout' | 'cancel'): void => {
      ending ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = (): void => kill('cancel');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    let settled = false;
    const finish = async (failure?: Error): Promise<void> => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      if (failure) return resolve(refuse(`bwrap could not be started: ${failure.message}`, INSTALL_BWRAP));
      const childPid = /"child-pid"\s*:\s*(\d+)/.exec(status)?.[1];
      if (ending && childPid !== undefined) await namespaceGone(Number(childPid));
      const output = Buffer.concat(chunks).toString('utf8');
      const exit = /"exit-code"\s*:\s*(-?\d+)/.exec(status)?.[1];
      if (ending === undefined && exit === undefined) {
        const said = output.split('\n').find((line) => line.startsWith('bwrap:')) ?? output.trim();
        return resolve(
          refuse(`the sandbox failed to start: ${said || 'bwrap exited without a word'}`, ENABLE_USERNS),
        );
      }
      resolve({
        kind: 'ran',
        exitCode: ending ? null : Number(exit),
        timedOut: ending === 'timeout',
        cancelled: ending === 'cancel',
        output,
        droppedBytes: dropped,
        limits: prepared.limits,
      });
    };
    child.on('error', (error) => void finish(error));
    // 'close' comes once bwrap has exited and every pipe is closed: only the namespace's processes hold them.
    child.on('close', () => void finish());
  });
  if (cgroup) await endPidsCgroup(cgroup);
  return outcome;
}
