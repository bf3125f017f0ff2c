/**
 * Runs a command through `main(argv, io)` in the test's own process, so its code counts towards coverage and a
 * run costs no Node start. It sees what the binary run by `dshMode` (./run.ts) sees: the same environment
 * (`NO_COLOR` and `FORCE_COLOR` cleared, then `env`, where `undefined` removes a variable), stdout that is not a
 * terminal, and the process's folder set to `cwd` for the run (the deployment reader resolves paths from it, as in
 * the binary). Each command keeps one binary smoke test beside these.
 */
import { main } from '../../src/cli/main.js';
import { colourEnabled } from '../../src/apps/colour.js';
import type { RunResult } from './run.js';

/** What an in-process run produced; `code` is never null (no signal can end it). */
export interface CliResult extends RunResult {
  code: number;
}

/**
 * Runs `dsh-mode` with arguments in a folder, in process.
 * @param argv the arguments after `dsh-mode`
 * @param options the folder and extra environment variables
 * @returns exit code and output
 */
export async function runCli(
  argv: string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  // npm's own variables say how the CLI was run (hints then print `npx dsh-mode`): a test that runs vitest through
  // npx must not pass that on, so they are cleared unless `env` sets them.
  const vars: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '',
    FORCE_COLOR: '',
    npm_command: undefined,
    npm_lifecycle_event: undefined,
    ...options.env,
  };
  for (const [name, value] of Object.entries(vars)) if (value === undefined) delete vars[name];
  let stdout = '';
  let stderr = '';
  const before = process.cwd();
  process.chdir(options.cwd);
  try {
    const code = await main(argv, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { cwd: options.cwd, color: colourEnabled(vars, false), vars },
    });
    return { code, stdout, stderr };
  } finally {
    process.chdir(before);
  }
}
