/**
 * How the user ran dsh-mode, so that a hint naming a command prints one they can paste: `npx dsh-mode …` when it
 * runs through npx (or `npm exec`, its other spelling), else `dsh-mode …`. npm tells its child how it was called:
 * `npm_command=exec` with `npm_lifecycle_event=npx`; a package script (`npm run lint`) is `run-script`, where
 * the command as the script writes it is `dsh-mode`.
 * @module
 */

/**
 * The command that runs dsh-mode, as the user typed it.
 * @param env the environment (npm's variables)
 * @returns `npx dsh-mode` under npx or `npm exec`, else `dsh-mode`
 */
export function invocation(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.npm_command === 'exec' && env.npm_lifecycle_event === 'npx' ? 'npx dsh-mode' : 'dsh-mode';
}
