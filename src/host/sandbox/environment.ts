/**
 * The environment of a sandboxed command: built from an allowlist, never by copying the host's and removing
 * what looks secret. From the host it takes only `PATH` (its absolute entries: a relative entry would let a file
 * of the workspace answer to a program's name), `LANG`, `LC_*`, `TERM` and `TZ`. It sets `HOME` (a hidden, empty
 * folder inside the sandbox), `TMPDIR=/tmp` (the private tmpfs) and `USER`/`LOGNAME`. A caller adds what its tool
 * needs (`GIT_OPTIONAL_LOCKS=0`); an added name that looks like a credential, or that makes bash run code before
 * the command (`BASH_ENV`, `ENV`, `BASH_FUNC_*`), is a programming error and throws.
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
 * The sandboxed command's whole environment.
 * @param hostEnv the host's environment (read for the allowlisted names only)
 * @param home the `HOME` the command sees (empty and read-only in the sandbox)
 * @param extra the caller's additions
 * @throws TypeError when `extra` names a variable {@link mayAddVariable} refuses
 */
export function sandboxEnvironment(
  hostEnv: Readonly<Record<string, string | undefined>>,
  home: string,
  extra: Readonly<Record<string, string>> = {},
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
  for (const [name, value] of Object.entries(extra)) {
    if (!mayAddVariable(name)) throw new TypeError(`sandbox: refusing to pass the variable ${name}`);
    env[name] = value;
  }
  return env;
}
