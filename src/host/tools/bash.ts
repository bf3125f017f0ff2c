/**
 * `bash`: runs a command with `bash -c` in the workspace root. A timeout or a cancellation ends the command and
 * every process it started, and so does the command's own end (a background job does not outlive the call).
 *
 * How the whole tree is ended depends on what the system allows, probed once per process:
 * - `pid-namespace` (Linux with util-linux `unshare`): the command runs as process 1 of its own PID namespace
 *   (`unshare --pid --fork --kill-child`; without root, inside a user namespace that maps the user to itself, so
 *   the command still runs as that user). Killing `unshare` kills process 1, and the kernel then kills every
 *   process of the namespace, including one that left the process group with `setsid`.
 * - `process-group` (elsewhere, or where namespaces are not permitted): the command leads its own process group,
 *   and SIGKILL goes to the group. A descendant that called `setsid` leaves the group and may survive; the call
 *   still returns on time, without waiting for the output that such a process keeps open.
 *
 * Output (stdout and stderr, interleaved) is capped. bash runs with `--norc --noprofile`, stdin closed, and no
 * `BASH_ENV`, `ENV` or exported functions in its environment, so no startup file or inherited function can
 * shadow the names a command policy judged. Unsandboxed, the command can reach anything the host user can.
 *
 * When the call's verdict requires a sandbox (`context.sandbox`, a mode with `sandbox: read-only`), the script
 * runs through `runSandboxed` instead (src/host/sandbox/README.md): read-only but a private `/tmp`, offline, its
 * own PID namespace, limits, a minimal environment. Where the sandbox cannot start, the call is refused with the
 * reason and how to install one; it never runs bare.
 * @module
 */
import { spawn, spawnSync } from 'node:child_process';
import type { Tool, ToolContext, ToolResult } from '../types.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';
import { runSandboxed } from '../sandbox/index.js';

/** Timeout of a command that names none. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Most characters of output returned (the rest is dropped and said so). */
export const BASH_OUTPUT_CAP = 64 * 1024;
/** How long to wait for the output pipes to close once the command has exited (they may be held elsewhere). */
const DRAIN_MS = 500;

/** How a command's process tree is ended. */
export type BashIsolation = 'pid-namespace' | 'process-group';

const UNSHARE_VARIANTS: readonly (readonly string[])[] = [
  ['--pid', '--fork', '--kill-child'],
  ['--user', '--map-current-user', '--pid', '--fork', '--kill-child'],
];

let probed: { isolation: BashIsolation; prefix: readonly string[] } | undefined;

/** The isolation this process can give commands (probed on first use, then cached). */
export function bashIsolation(): BashIsolation {
  return probe().isolation;
}

function probe(): { isolation: BashIsolation; prefix: readonly string[] } {
  if (probed) return probed;
  probed = { isolation: 'process-group', prefix: [] };
  if (process.platform !== 'linux') return probed;
  for (const flags of UNSHARE_VARIANTS) {
    const run = spawnSync('unshare', [...flags, 'true'], { stdio: 'ignore', timeout: 10_000 });
    if (run.status === 0) {
      probed = { isolation: 'pid-namespace', prefix: flags };
      break;
    }
  }
  return probed;
}

/**
 * The environment a command runs with: the host's, without what would make bash run code before the command or
 * give a command's name another meaning (`BASH_ENV`, `ENV`, exported functions `BASH_FUNC_name%%`), and with
 * `GIT_OPTIONAL_LOCKS=0`, so that a read such as `git status` does not rewrite `.git/index`. Together with
 * `--norc --noprofile`, the names a command policy judges are the programs that run.
 * @param env the host's environment
 * @returns the command's environment
 */
export function shellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === 'BASH_ENV' || name === 'ENV' || name.startsWith('BASH_FUNC_')) continue;
    out[name] = value;
  }
  out.GIT_OPTIONAL_LOCKS = '0';
  return out;
}

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** `auto` (the default) uses a PID namespace where the system allows one. */
  isolation?: 'auto' | 'process-group';
  /**
   * The host environment a sandboxed call finds `bwrap` and `bash` on (`PATH`) and takes its minimal
   * environment from. Default `process.env`.
   */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * Runs one script in the read-only sandbox and words the result as the unsandboxed path does, or refuses.
 * @returns the tool result
 */
async function runInSandbox(
  command: string,
  timeoutMs: number,
  context: ToolContext,
  hostEnv: BashToolOptions['hostEnv'],
): Promise<ToolResult> {
  const outcome = await runSandboxed({
    workspace: context.workspace,
    command: { script: command },
    timeoutMs,
    // The same guard as unsandboxed: a read such as `git status` must not try to rewrite `.git/index`.
    env: { GIT_OPTIONAL_LOCKS: '0' },
    signal: context.signal,
    maxOutputBytes: BASH_OUTPUT_CAP,
    ...(hostEnv ? { hostEnv } : {}),
  });
  if (outcome.kind === 'refused') {
    const how = outcome.howToInstall ? `; ${outcome.howToInstall}` : '';
    return {
      content: `Error: this mode runs bash in a read-only OS sandbox, which cannot start here, so nothing ran: ${outcome.reason}${how}`,
      isError: true,
    };
  }
  const tail = outcome.droppedBytes > 0 ? `\n[output truncated at ${BASH_OUTPUT_CAP} bytes]` : '';
  const where = 'read-only sandbox';
  if (outcome.timedOut || outcome.cancelled) {
    const ending = outcome.timedOut ? `timed out after ${timeoutMs} ms` : 'cancelled';
    return {
      content: `${outcome.output}${tail}\n[${ending}; the command and every process it started were killed; ${where}]`,
      isError: true,
    };
  }
  return {
    content: `${outcome.output}${tail}\n[exit code ${outcome.exitCode}; ${where}]`,
    isError: outcome.exitCode !== 0,
  };
}

/**
 * A `bash` tool: destructive, not idempotent, open-world (a command can reach anything).
 * @param options how to end a command's process tree
 */
export function createBashTool(
  options: BashToolOptions = {},
): Tool<{ command: string; timeout_ms?: number }> {
  return {
    name: 'bash',
    description:
      'Run a shell command (bash -c) in the workspace root. Output is capped; a timeout or a cancel kills the command and the processes it started (where no PID namespace is available, a process that detached with setsid may survive).',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1 },
        timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000, description: 'Default 120000.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: BUILTIN_TOOL_ANNOTATIONS.bash,
    sandboxes: true,
    execute(args, context) {
      if (context.sandbox === 'read-only')
        return runInSandbox(
          args.command,
          args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS,
          context,
          options.hostEnv,
        );
      const { isolation, prefix } =
        options.isolation === 'process-group' ? { isolation: 'process-group' as const, prefix: [] } : probe();
      return new Promise((resolve) => {
        const shell = ['bash', '--norc', '--noprofile', '-c', args.command];
        const [file, argv] =
          isolation === 'pid-namespace' ? ['unshare', [...prefix, ...shell]] : [shell[0]!, shell.slice(1)];
        const child = spawn(file, argv, {
          cwd: context.workspace,
          env: shellEnvironment(process.env),
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        let truncated = false;
        let ending: string | null = null;
        let settled = false;
        let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
        const collect = (chunk: Buffer): void => {
          if (output.length >= BASH_OUTPUT_CAP) {
            truncated = true;
            return;
          }
          output += chunk.toString('utf8');
          if (output.length > BASH_OUTPUT_CAP) {
            output = output.slice(0, BASH_OUTPUT_CAP);
            truncated = true;
          }
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        const killTree = (): void => {
          if (child.pid === undefined) return;
          for (const target of [-child.pid, child.pid]) {
            try {
              process.kill(target, 'SIGKILL');
            } catch {
              // already gone: nothing left to kill
            }
          }
        };
        const kill = (why: string): void => {
          ending ??= why;
          killTree();
        };
        const timeout = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS;
        const timer = setTimeout(() => kill(`timed out after ${timeout} ms`), timeout);
        const onAbort = (): void => kill('cancelled');
        context.signal.addEventListener('abort', onAbort, { once: true });
        if (context.signal.aborted) onAbort();
        let drain: NodeJS.Timeout | undefined;
        const finish = (failure?: Error): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(drain);
          context.signal.removeEventListener('abort', onAbort);
          // The command's own children may still hold the group: take them down with it.
          killTree();
          child.stdout.destroy();
          child.stderr.destroy();
          const tail = truncated ? `\n[output truncated at ${BASH_OUTPUT_CAP} characters]` : '';
          if (failure)
            return resolve({ content: `Error: could not run bash: ${failure.message}`, isError: true });
          if (ending) {
            const killed =
              isolation === 'pid-namespace'
                ? 'the command and every process it started were killed'
                : 'the process group was killed (a process that left it with setsid may still run)';
            return resolve({ content: `${output}${tail}\n[${ending}; ${killed}]`, isError: true });
          }
          const { code, signal } = exited ?? { code: null, signal: null };
          const status = code === null ? `killed by ${signal}` : `exit code ${code}`;
          resolve({ content: `${output}${tail}\n[${status}]`, isError: code !== 0 });
        };
        child.on('error', (failure) => finish(failure));
        child.on('exit', (code, signal) => {
          exited = { code, signal };
          // Normally the pipes close right after the exit; a process outside the group may hold them open.
          killTree();
          drain = setTimeout(() => finish(), DRAIN_MS);
        });
        child.on('close', () => finish());
      });
    },
  };
}

/** The `bash` tool, ending the whole process tree as well as the system allows ({@link bashIsolation}). */
export const bashTool = createBashTool();
