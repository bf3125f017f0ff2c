/**
 * The types of the OS sandbox: what a caller asks to run ({@link SandboxRequest}), the limits it runs under
 * ({@link SandboxLimits}), and what comes back ({@link SandboxOutcome}: it ran, or it was refused and never
 * started). No runtime code.
 * @module
 */

/** Resource limits of one sandboxed call. Every number is a positive integer. */
export interface SandboxLimits {
  /** Address space of each process, in bytes (`RLIMIT_AS`): `sort /dev/zero` fails instead of filling memory. */
  memoryBytes: number;
  /**
   * Processes and threads of the call together: `RLIMIT_NPROC` counted in the call's own user namespace, or, when
   * the host runs as root (the kernel does not apply `RLIMIT_NPROC` to uid 0), `pids.max` of the call's cgroup.
   */
  processes: number;
  /** Largest file any process may write, in bytes (`RLIMIT_FSIZE`; a larger write ends it with `SIGXFSZ`). */
  fileBytes: number;
  /** Size of the private `/tmp`, in bytes (a tmpfs: it lives in memory and is discarded with the call). */
  tmpBytes: number;
}

/**
 * What runs: a bash script, or an argument vector (the first word looked up on the sandbox's `PATH`), which the
 * bash that set the limits `exec`s.
 */
export type SandboxCommand = { argv: readonly string[] } | { script: string };

/** One call to run in the sandbox. */
export interface SandboxRequest {
  /** The folder the command runs in: readable, not writable. */
  workspace: string;
  command: SandboxCommand;
  /** Ends the call (the whole process tree) with SIGKILL after this many milliseconds. */
  timeoutMs: number;
  /** Added to the minimal environment. A name that looks like a credential is an error, not dropped. */
  env?: Readonly<Record<string, string>>;
  /** Overrides of {@link DEFAULT_SANDBOX_LIMITS}. */
  limits?: Partial<SandboxLimits>;
  /** Ends the call like a timeout. */
  signal?: AbortSignal;
  /** Most bytes of output kept (stdout and stderr interleaved); the rest is counted and dropped. Default 64 KiB. */
  maxOutputBytes?: number;
  /**
   * The host's environment: where `bwrap` and `bash` are looked up (`PATH`), and where the sandbox takes
   * `PATH`, `LANG`, `LC_*`, `TERM`, `TZ` and `HOME` from. Default `process.env`.
   */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

/** How the call's processes were bounded: rlimits alone, or rlimits and a pids cgroup (as root). */
export type SandboxLimitKind = 'rlimit' | 'rlimit+cgroup';

/** The command ran (and ended, by itself or killed). */
export interface SandboxRan {
  kind: 'ran';
  /**
   * The command's exit code (128 + n when signal n ended it: `SIGXFSZ` past the file limit gives 153), or null
   * when the call was ended by its timeout or its abort signal.
   */
  exitCode: number | null;
  /** Ended by the timeout. */
  timedOut: boolean;
  /** Ended by the request's abort signal. */
  cancelled: boolean;
  /** stdout and stderr interleaved as they arrived, cut at `maxOutputBytes`. */
  output: string;
  /** Bytes of output dropped past the cap. */
  droppedBytes: number;
  limits: SandboxLimitKind;
}

/** The sandbox could not start: the command never ran. A caller turns this into a deny with the reason. */
export interface SandboxRefused {
  kind: 'refused';
  /** What is missing or failed, in a sentence. */
  reason: string;
  /** How to make the sandbox work on this machine. */
  howToInstall: string;
}

export type SandboxOutcome = SandboxRan | SandboxRefused;

/** What {@link sandboxSupport} finds on this machine (for `dsh-mode doctor` and for deny reasons). */
export interface SandboxSupport {
  available: boolean;
  /** The mechanism: `bwrap` on Linux; `none` elsewhere. */
  kind: 'bwrap' | 'none';
  /** How processes are bounded here, when available. */
  limits?: SandboxLimitKind;
  /** Why it is not available. */
  reason?: string;
  howToInstall: string;
}
