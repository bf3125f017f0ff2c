/**
 * `bash`: runs a command with `bash -c` in the workspace root, in its own process group, so that a timeout or a
 * cancellation kills the command and every process it started (SIGKILL to the group). Output (stdout and stderr,
 * interleaved) is capped. A text gate is not a sandbox: the command can reach anything the host user can.
 * @module
 */
import { spawn } from 'node:child_process';
import type { Tool } from '../types.js';

/** Timeout of a command that names none. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Most characters of output returned (the rest is dropped and said so). */
export const BASH_OUTPUT_CAP = 64 * 1024;

/** The `bash` tool: destructive, not idempotent, open-world (a command can reach anything). */
export const bashTool: Tool<{ command: string; timeout_ms?: number }> = {
  name: 'bash',
  description: 'Run a shell command (bash -c) in the workspace root. Output is capped; a timeout kills it.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1 },
      timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000, description: 'Default 120000.' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  execute(args, context) {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', args.command], {
        cwd: context.workspace,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      let truncated = false;
      let ending: string | null = null;
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
      const kill = (why: string): void => {
        ending ??= why;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group already exited: nothing left to kill
        }
      };
      const timeout = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS;
      const timer = setTimeout(() => kill(`timed out after ${timeout} ms`), timeout);
      const onAbort = (): void => kill('cancelled');
      context.signal.addEventListener('abort', onAbort, { once: true });
      if (context.signal.aborted) onAbort();
      const finish = (code: number | null, signal: NodeJS.Signals | null, failure?: Error): void => {
        clearTimeout(timer);
        context.signal.removeEventListener('abort', onAbort);
        // The command's own children may still hold the group: take them down with it.
        kill(ending ?? 'finished');
        const tail = truncated ? `\n[output truncated at ${BASH_OUTPUT_CAP} characters]` : '';
        if (failure)
          return resolve({ content: `Error: could not run bash: ${failure.message}`, isError: true });
        if (ending && ending !== 'finished') {
          return resolve({
            content: `${output}${tail}\n[${ending}; the process group was killed]`,
            isError: true,
          });
        }
        const status = code === null ? `killed by ${signal}` : `exit code ${code}`;
        resolve({ content: `${output}${tail}\n[${status}]`, isError: code !== 0 });
      };
      child.on('error', (failure) => finish(null, null, failure));
      child.on('close', (code, signal) => finish(code, signal));
    });
  },
};
