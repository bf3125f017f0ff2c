/**
 * Runs one command in the OS sandbox ({@link runSandboxed}), or refuses without running it.
 *
 * The command runs under `bwrap` (the filesystem of `mounts.ts`, its own mount, PID, IPC, UTS and network
 * namespaces, its own session, no capabilities, no Unix sockets: `seccomp.ts`), as a script of the host's bash
 * that sets the rlimits first, and, for a root host, in a pids cgroup of its own (`limits.ts`), in the minimal
 * environment of `environment.ts`. The call ends with the command. A timeout or an abort SIGKILLs bwrap's process
 * group and the namespace's first process (`tree.ts`: bwrap arms `--die-with-parent` only after its setup), and
 * the kernel then kills every other process of the namespace. The runner resolves only once the first process is
 * gone (for a root host, once the cgroup is empty): nothing the call started outlives it, and its `/tmp` goes
 * with its mount namespace.
 *
 * It refuses, and never runs the command bare, when the platform is not Linux, `bwrap` is not on the host's
 * `PATH` or `bash` is not there outside the workspace and the hidden folders, a root host cannot make a pids
 * cgroup, or bwrap fails to set the sandbox up (bwrap reports the command's exit on its status descriptor only
 * once the command ran: without that report, the output is bwrap's own error).
 * @module
 */
import { spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { sep } from 'node:path';
import { exportCommand, sandboxEnvironment } from './environment.js';
import {
  callLimits,
  createPidsCgroup,
  endPidsCgroup,
  killMembers,
  resolveLimits,
  ulimitCommand,
  type PidsCgroup,
} from './limits.js';
import { bwrapArgs, hiddenFolders, isInside, SECCOMP_FD, STATUS_FD } from './mounts.js';
import { seccompFilter } from './seccomp.js';
import type {
  SandboxCommand,
  SandboxLimitKind,
  SandboxLimits,
  SandboxOutcome,
  SandboxRefused,
  SandboxRequest,
} from './types.js';
import { identify, killGroup, killProcess, waitGone, type ProcessIdentity } from './tree.js';
import { findProgram } from './which.js';

/** Output kept from a call that names no cap. */
export const SANDBOX_OUTPUT_CAP = 64 * 1024;

/** What to do when bubblewrap is not installed. */
export const INSTALL_BWRAP =
  'Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` ' +
  '(Fedora), `sudo pacman -S bubblewrap` (Arch).';

const INSTALL_BASH =
  'Install bash (`sudo apt-get install bash`) in a system folder on the PATH, such as /usr/bin.';

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

/** The kernel's limit on one argument's length (`MAX_ARG_STRLEN`, with its NUL). */
const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/**
 * The command as bwrap starts it: the host's bash (by its real path: what was checked is what runs), which sets the
 * limits first, in its own process, then exports the caller's variables, then runs the script, or `exec`s the
 * argv. All of that shares the script's first line, so its line numbers stay as written; bash runs a `-c` text
 * command by command and stops at a syntax error, so nothing of the script runs before the limits. `$0` is
 * `bash`, as for a `bash -c` found on the PATH.
 * @throws TypeError for a NUL in the command (no program can be given one), RangeError for a script or an
 *   argument longer than the kernel passes
 */
function bashArgv(
  bash: string,
  command: SandboxCommand,
  limits: SandboxLimits,
  extra: Readonly<Record<string, string>> | undefined,
): string[] {
  const [body, args] = 'script' in command ? [command.script, []] : ['exec -- "$@"', command.argv];
  const exports = exportCommand(extra);
  const first = `${ulimitCommand(limits)}; ${exports === '' ? '' : `${exports}; `}`;
  const argv = [bash, '--norc', '--noprofile', '-c', `${first}${body}`, 'bash', ...args];
  for (const arg of argv) {
    if (arg.includes('\0')) throw new TypeError('sandbox: a command cannot hold a NUL byte');
    const bytes = Buffer.byteLength(arg);
    if (bytes > MAX_ARGUMENT_BYTES)
      throw new RangeError(
        `sandbox: the command is ${bytes} bytes with its limits; ` +
          `the kernel passes at most ${MAX_ARGUMENT_BYTES} in one argument`,
      );
  }
  return argv;
}

function prepare(request: SandboxRequest): Prepared | SandboxRefused {
  if (process.platform !== 'linux')
    return refuse(`there is no OS sandbox on ${process.platform}`, OTHER_PLATFORM);
  const hostEnv = request.hostEnv ?? process.env;
  const limits = callLimits(resolveLimits(request.limits));
  if ('argv' in request.command && (request.command.argv.length === 0 || request.command.argv[0] === ''))
    throw new TypeError('sandbox: the command has no program');
  const bwrap = findProgram('bwrap', hostEnv.PATH);
  if (bwrap === undefined) return refuse('bubblewrap (`bwrap`) is not on the PATH', INSTALL_BWRAP);
  let workspace: string;
  try {
    workspace = realpathSync(request.workspace);
    if (!statSync(workspace).isDirectory()) throw new Error('not a folder');
  } catch (error) {
    return refuse(`the workspace ${request.workspace} cannot be used: ${(error as Error).message}`, '');
  }
  const home = hostEnv.HOME ?? homedir();
  const hidden = hiddenFolders(home);
  // bash sets the limits: it must be one the sandbox shows, not one the workspace holds (which could skip them).
  const usable = (real: string): boolean =>
    !['/tmp', ...hidden].some((folder) => isInside(real, folder)) &&
    (workspace === sep || !isInside(real, workspace));
  const bash = findProgram('bash', hostEnv.PATH, usable);
  if (bash === undefined)
    return refuse(
      '`bash` is not on the PATH outside the workspace and the folders the sandbox hides',
      INSTALL_BASH,
    );
  const filter = seccompFilter();
  if (filter === undefined)
    return refuse(
      `there is no seccomp filter for the ${process.arch} architecture`,
      'Run dsh-mode on x86-64 or arm64.',
    );
  const root = process.getuid?.() === 0;
  const args = [
    ...bwrapArgs({ workspace, hidden, tmpBytes: limits.tmpBytes }),
    '--',
    ...bashArgv(bash, request.command, limits, request.env),
  ];
  const env = sandboxEnvironment(hostEnv, home);
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

/** How long the output may stay open after a killed call's bwrap is gone, before the runner stops waiting. */
const DRAIN_MS = 2_000;

/**
 * Runs a command in the sandbox.
 * @returns `ran` with its exit code and output, or `refused` (the command never started) with the reason and
 *   how to install what is missing
 * @throws TypeError or RangeError for a malformed request (no program, a bad limit, a credential in `env`)
 */
export async function runSandboxed(request: SandboxRequest): Promise<SandboxOutcome> {
  const prepared = prepare(request);
  if (prepared.kind === 'refused') return prepared;
  // The cgroup is ended however the call ends, a spawn that throws included.
  try {
    return await run(prepared, request);
  } finally {
    if (prepared.cgroup) await endPidsCgroup(prepared.cgroup);
  }
}

/** Spawns a prepared call and collects it until it is over. */
function run(prepared: Prepared, request: SandboxRequest): Promise<SandboxOutcome> {
  const { file, args, env, filter, cgroup } = prepared;
  const cap = request.maxOutputBytes ?? SANDBOX_OUTPUT_CAP;
  return new Promise<SandboxOutcome>((resolve) => {
    // Its own process group: bwrap's first process in the namespace stays in it until its setup is done.
    const child = spawn(file, args, {
      cwd: '/',
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
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
    let ending: 'timeout' | 'cancel' | undefined;
    let status = '';
    // The namespace's first process, identified as soon as bwrap names it (it is alive then: bwrap holds it).
    let inner: ProcessIdentity | undefined;
    const statusStream = child.stdio[STATUS_FD] as NodeJS.ReadableStream;
    statusStream.on('data', (chunk: Buffer) => {
      status += chunk.toString('utf8');
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(status)?.[1];
      if (inner === undefined && pid !== undefined) inner = identify(Number(pid));
      if (ending) killTree();
    });
    const killTree = (): void => {
      if (child.pid !== undefined) killGroup(child.pid);
      child.kill('SIGKILL');
      if (inner) killProcess(inner);
      if (cgroup) killMembers(cgroup);
    };
    const kill = (why: 'timeout' | 'cancel'): void => {
      ending ??= why;
      killTree();
    };
    const timer = setTimeout(() => kill('timeout'), request.timeoutMs);
    const onAbort = (): void => kill('cancel');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    let settled = false;
    let drain: NodeJS.Timeout | undefined;
    const finish = async (failure?: Error): Promise<void> => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      request.signal?.removeEventListener('abort', onAbort);
      if (failure) return resolve(refuse(`bwrap could not be started: ${failure.message}`, INSTALL_BWRAP));
      if (ending) {
        killTree();
        if (inner) await waitGone(inner);
        for (const stream of [child.stdout, child.stderr, statusStream])
          (stream as NodeJS.ReadStream).destroy();
      }
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
    child.on('exit', () => {
      // A killed call: bwrap is gone, and what it named is killed too; the output then closes with the
      // namespace, and a process that escaped both (none should) cannot hold the call open.
      if (ending) {
        killTree();
        drain = setTimeout(() => void finish(), DRAIN_MS);
      }
    });
    // 'close' comes once bwrap has exited and every pipe is closed: only the namespace's processes hold them.
    child.on('close', () => void finish());
  });
}
