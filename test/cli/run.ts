/**
 * Helpers for CLI tests: temp folders built from inline `{ path: contents }` objects, and the real binary
 * (`bin/dsh-mode.mjs`, built by test/global-setup.ts) run as a child process.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');

/**
 * Creates a temp folder with the given files (objects are written as JSON).
 * @returns the folder's absolute path
 */
export function makeTree(files: Record<string, string | object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-cli-'));
  for (const [path, contents] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, typeof contents === 'string' ? contents : JSON.stringify(contents));
  }
  return dir;
}

/** What a run of the binary produced. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dsh-mode` with arguments in a folder.
 * @returns exit code and output
 */
export function dshMode(args: string[], cwd: string, env: Record<string, string> = {}): RunResult {
  // npm's variables say how the CLI was run (hints then print `npx dsh-mode`): not passed on unless `env` sets them.
  const vars: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env };
  for (const name of ['npm_command', 'npm_lifecycle_event']) if (!(name in env)) delete vars[name];
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: vars });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Parses stdout as JSON, failing the test with the output when it is not.
 * @returns the parsed value
 */
export function json(result: RunResult): Record<string, unknown> {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`stdout is not JSON:\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}
