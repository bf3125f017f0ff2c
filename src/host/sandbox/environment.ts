/**
 * The environment of a sandboxed command: built from an allowlist, never by copying the host's and removing
 * what looks secret. From the host it takes only `PATH` (its absolute entries: a relative entry would let a file
 * of the workspace answer to a program's name), `LANG`, `LC_*`, `TERM` and `TZ`. It sets `HOME` (a hidden, empty
 * folder inside the sandbox), `TMPDIR=/tmp` (the private tmpfs) and `USER`/`LOGNAME`. That is all `bwrap` (and a
 * root host's shell) starts with, and all the command's bash starts with: none of it changes how a program loads
 * or how bash starts.
 *
 * A caller adds what its tool needs (`GIT_OPTIONAL_LOCKS=0`), not to that environment but as `export`s the
 * command's bash runs after it has set the limits ({@link exportCommand}), as the script could itself: a variable
 * that changes a loader or a shell (`LD_PRELOAD`, `SHELLOPTS`, `PS4`, `POSIXLY_CORRECT`) then reaches neither the
 * host's processes nor the shell's start. An added name that looks like a credential, or that makes bash run code
 * (`BASH_ENV`, `ENV`, `BASH_FUNC_*`), is a programming error and throws.
 * @module
 */

/** Host variables passed through as they are (besides `PATH`, which is filtered, and every `LC_*`). */
const PASSED = new Set(['LANG', 'TERM', 'TZ']);

/** The `PATH` used when the host's has no absolute entry. */
export const DEFAULT_SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * Names a caller may not add: credentials by the words they are spelled with (`OPENAI_API_KEY`, `GH_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `NPM_CONFIG__AUTH`), and the variables by which bash runs code first.
 */
const FORBIDDEN =
  /KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^BASH_ENV$|^ENV$|^BASH_FUNC_/i;

/** Whether a caller may add `name` to a sandbox's environment. */
export function mayAddVariable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !FORBIDDEN.test(name);
}

/** The host `PATH`'s absolute entries, in order and without repeats, or {@link DEFAULT_SANDBOX_PATH}. */
export function sandboxPath(hostPath: string | undefined): string {
  const entries = (hostPath ?? '').split(':').filter((entry) => entry.startsWith('/'));
  const unique = [...new Set(entries)];
  return unique.length > 0 ? unique.join(':') : DEFAULT_SANDBOX_PATH;
}

/**
 * The environment `bwrap` and the command's bash start with.
 * @param hostEnv the host's environment (read for the allowlisted names only)
 * @param home the `HOME` the command sees (empty and read-only in the sandbox)
 */
export function sandboxEnvironment(
  hostEnv: Readonly<Record<string, string | undefined>>,
  home: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value === undefined) continue;
    if (PASSED.has(name) || /^LC_[A-Z]+$/.test(name)) env[name] = value;
  }
  env.PATH = sandboxPath(hostEnv.PATH);
  env.HOME = home;
  env.TMPDIR = '/tmp';
  const user = hostEnv.USER ?? hostEnv.LOGNAME;
  if (user !== undefined && /^[A-Za-z0-9._-]+$/.test(user)) env.USER = env.LOGNAME = user;
  return env;
}

/**
 * The caller's variables as one line of bash `export`s (empty for none), each value quoted as `$'…'` with its
 * control characters escaped, so the line stays one line.
 * @throws TypeError when a name is one {@link mayAddVariable} refuses, or a value holds a NUL
 */
export function exportCommand(extra: Readonly<Record<string, string>> = {}): string {
  const exports: string[] = [];
  for (const [name, value] of Object.entries(extra)) {
    if (!mayAddVariable(name)) throw new TypeError(`sandbox: refusing to pass the variable ${name}`);
    if (value.includes('\0')) throw new TypeError(`sandbox: the variable ${name} holds a NUL`);
    exports.push(`export ${name}=${quoted(value)}`);
  }
  return exports.join('; ');
}

function quoted(value: string): string {
  const escaped = value.replace(/[\\'\x00-\x1f\x7f]/g, (c) =>
    c === '\\' || c === "'" ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return `$'${escaped}'`;
}
