/**
 * A raw-bytes ACP client for the hostile tests: spawns the built `node bin/dsh-mode.mjs acp` in a workspace,
 * writes arbitrary bytes to its stdin, and reads stdout as newline-delimited JSON (asserting that every stdout
 * line is JSON: stdout carries protocol only). Requests from the agent (permission questions) are collected and
 * can be answered by hand. Both clients here check every message of the agent's against the SDK's JSON Schema
 * (`acp-schema.ts`): a mismatch fails the test that created the client.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { watchAgentMessages, type AgentMessageChecker } from './acp-schema.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');

export interface RpcMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export class RawAcpClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly received: RpcMessage[] = [];
  /** stdout lines that were not JSON (must stay empty). */
  readonly noise: string[] = [];
  stderr = '';
  #buffer = '';
  #waiters: { test: (m: RpcMessage) => boolean; resolve: (m: RpcMessage) => void }[] = [];
  #next = 1000;
  readonly exited: Promise<number | null>;
  /** Every agent message, checked against the ACP schema. */
  readonly schema: AgentMessageChecker = watchAgentMessages();

  constructor(workspace: string, script: unknown[]) {
    const scriptFile = join(workspace, '.hostile-script.json');
    writeFileSync(scriptFile, JSON.stringify(script));
    const env = { ...process.env };
    delete env.DEEPSEEK_API_KEY;
    this.child = spawn(process.execPath, [BIN, 'acp', '--model-script', scriptFile], {
      cwd: workspace,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.setEncoding('utf8').on('data', (text: string) => (this.stderr += text));
    this.child.stdout.setEncoding('utf8').on('data', (text: string) => this.#read(text));
    this.exited = new Promise((done) => this.child.on('close', (code) => done(code)));
  }

  #read(text: string): void {
    this.#buffer += text;
    const lines = this.#buffer.split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: RpcMessage;
      try {
        message = JSON.parse(line) as RpcMessage;
      } catch {
        this.noise.push(line);
        continue;
      }
      this.received.push(message);
      this.schema.received(message);
      this.#waiters = this.#waiters.filter((w) => (w.test(message) ? (w.resolve(message), false) : true));
    }
  }

  /** Writes raw text (a newline is not added). */
  write(raw: string | Buffer): void {
    this.child.stdin.write(raw);
  }

  /** Resolves with the first message (already received or future) that passes `test`. */
  waitFor(test: (m: RpcMessage) => boolean, timeoutMs = 20_000): Promise<RpcMessage> {
    const seen = this.received.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no matching message within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`),
          ),
        timeoutMs,
      );
      this.#waiters.push({ test, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Sends a request and resolves with its response (result or error). */
  request(method: string, params: unknown): Promise<RpcMessage> {
    const id = this.#next++;
    const message = { jsonrpc: '2.0', id, method, params };
    this.schema.sent(message);
    this.write(JSON.stringify(message) + '\n');
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  /** Closes stdin and waits for the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** A spawned `dsh-mode acp` with the SDK's stream over its pipes, for tests that drive it with the real client. */
export interface SpawnedAcp {
  readonly child: ChildProcessWithoutNullStreams;
  /** The SDK stream over the child's stdin and stdout. */
  readonly stream: ReturnType<typeof acp.ndJsonStream>;
  /** Resolves with the exit code once the child has closed. */
  readonly exited: Promise<number | null>;
  /** What the child wrote to stderr so far. */
  stderr(): string;
  /** Every agent message on `stream`, checked against the ACP schema. */
  readonly schema: AgentMessageChecker;
}

/**
 * Spawns the built `dsh-mode acp` with `args` in `cwd` (DEEPSEEK_API_KEY removed from the environment).
 * @returns the child, the SDK stream over its pipes, its exit, and its stderr so far
 */
export function spawnAcp(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): SpawnedAcp {
  const vars = { ...env };
  delete vars.DEEPSEEK_API_KEY;
  const child = spawn(process.execPath, [BIN, 'acp', ...args], {
    cwd,
    env: vars,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((done) => child.on('close', done));
  const schema = watchAgentMessages();
  const stream = checkedStream(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
    schema,
  );
  return { child, stream, exited, stderr: () => stderr, schema };
}

/**
 * The SDK stream with every message in either direction shown to `checker` (the client's requests, to know what
 * an answer answers; the agent's messages, to check them).
 * @param raw the stream over the agent's pipes
 * @param checker what sees the traffic
 * @param tap also sees each message, with its direction
 */
export function checkedStream(
  raw: acp.Stream,
  checker: AgentMessageChecker,
  tap?: (dir: 'client→agent' | 'agent→client', message: acp.AnyMessage) => void,
): acp.Stream {
  return {
    readable: raw.readable.pipeThrough(
      new TransformStream<acp.AnyMessage, acp.AnyMessage>({
        transform(message, controller) {
          tap?.('agent→client', message);
          checker.received(message);
          controller.enqueue(message);
        },
      }),
    ),
    writable: new WritableStream<acp.AnyMessage>({
      async write(message) {
        tap?.('client→agent', message);
        checker.sent(message);
        const writer = raw.writable.getWriter();
        try {
          await writer.write(message);
        } finally {
          writer.releaseLock();
        }
      },
      async close() {
        await raw.writable.close();
      },
    }),
  };
}
