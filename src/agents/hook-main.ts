/**
 * The hook process: `dsh-mode hook AGENT` reading stdin and writing its answer. `bin/dsh-mode-hook.cjs` runs it from its own
 * small script (`dist/bundle/agents/hook.cjs`, scripts/build.mjs) through V8's code cache, without loading the
 * command line, because an agent starts it before every tool call. `dsh-mode hook --help` goes through the command
 * line as usual.
 *
 * Whatever happens, the process answers: an input past the size cap, an unknown agent or a crash anywhere is a
 * deny in the agent's dialect, and an exit 2 always comes with its reason on stderr.
 * @module
 */
import { readSync, writeSync } from 'node:fs';
import { failureReply, type HookReply } from './dialect.js';
import { decideHook, readStdin } from './hook.js';
import { MAX_INPUT_BYTES } from './input.js';
import { AGENTS, isAgent, type AgentName } from './tables.js';

/** The streams and environment of one hook process. */
export interface HookProcess {
  /** The input: a stream, or a function that reads it (the hook process reads fd 0 synchronously). */
  stdin: NodeJS.ReadableStream | (() => Promise<string>);
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs `dsh-mode hook AGENT`.
 * @param agentName the agent named on the command line
 * @param io the process's streams
 * @returns the exit code
 */
export async function runHookProcess(agentName: string | undefined, io: HookProcess): Promise<number> {
  let reply: HookReply;
  const agent: AgentName | undefined = agentName !== undefined && isAgent(agentName) ? agentName : undefined;
  try {
    if (agent === undefined) {
      reply = failureReply(
        undefined,
        `\`dsh-mode hook\` needs an agent: ${AGENTS.join(', ')} (got ${JSON.stringify(agentName ?? '')})`,
      );
    } else {
      const text =
        typeof io.stdin === 'function' ? await io.stdin() : await readStdin(io.stdin, MAX_INPUT_BYTES);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        reply = failureReply(agent, `the hook input is not JSON (${(error as Error).message})`);
        return finish(reply, io);
      }
      reply = (await decideHook(agent, value, { cwd: io.cwd, env: io.env })).reply;
    }
  } catch (error) {
    reply = failureReply(agent, error instanceof Error ? error.message : String(error));
  }
  return finish(reply, io);
}

function finish(reply: HookReply, io: HookProcess): number {
  if (reply.stdout) io.stdout(reply.stdout);
  if (reply.stderr) io.stderr(reply.stderr);
  return reply.exitCode;
}

/** Writes everything and exits with the code, as the bundle's entry does. */
export async function hookEntry(argv: readonly string[]): Promise<void> {
  const code = await runHookProcess(argv[1], {
    stdin: () => readFdZero(MAX_INPUT_BYTES),
    stdout: (t) => writeFd(1, t),
    stderr: (t) => writeFd(2, t),
    cwd: process.cwd(),
    env: process.env,
  });
  process.exitCode = code;
}

/**
 * Writes all of `text` to fd 1 or 2 synchronously, for the reason {@link readFdZero} reads so (`process.stdout` on
 * a pipe builds a socket: ~3 ms of a hook process). A non-blocking descriptor that is full goes on through the
 * stream.
 */
function writeFd(fd: 1 | 2, text: string): void {
  let rest = Buffer.from(text, 'utf8');
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    (fd === 1 ? process.stdout : process.stderr).write(rest);
  }
}

/**
 * Reads fd 0 to its end, at most `max` bytes. Synchronously while it can: `process.stdin` builds a stream (and for
 * a pipe a socket), which costs a hook process more than the read. A non-blocking descriptor (EAGAIN) goes on
 * through the stream.
 * @throws Error past `max` bytes
 */
export async function readFdZero(max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') throw error;
      const rest = await readStdin(process.stdin, max - total);
      return Buffer.concat([...chunks, Buffer.from(rest)]).toString('utf8');
    }
    if (n === 0) break;
    total += n;
    if (total > max) throw new Error(`the hook input is larger than ${max} bytes`);
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
