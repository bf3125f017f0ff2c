/**
 * The model's server as a hostile or unusual peer, over real loopback HTTP (node:http on 127.0.0.1): a 48 MB
 * single SSE line (parsed in seconds: the reader is linear in line length), lone-CR and CRLF line ends, a BOM, a
 * character split across network chunks, an error object sent inside the stream, a thinking model that streams
 * reasoning for longer than the timeout, a `Retry-After` of an hour, a server that needs no key, and DeepSeek's
 * rule for sending reasoning back. Through the built CLI: `chat --prompt` shows the reasoning and exits non-zero
 * with the cause when the turn fails, and `acp` streams the reasoning as `agent_thought_chunk`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiModel, type ModelRequest } from '../../src/host/index.js';
import { setup } from '../host/setup.js';
import { thinkingServer, type ThinkingServer } from '../host/thinking-server.js';
import { watchAgentMessages } from './acp-schema.js';
import { measured } from './config.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');
let server: Server | undefined;
let thinking: ThinkingServer | undefined;

afterEach(async () => {
  await thinking?.close();
  thinking = undefined;
  const current = server;
  server = undefined;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((done) => current.close(done));
});

type Handler = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

async function serve(handler: Handler): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req);
      handler(req, res, seen.length);
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const event = (delta: unknown, finish: string | null = null): string =>
  JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });

const request: ModelRequest = {
  header: { system: '', tools: [] },
  messages: [{ role: 'user', content: 'hi' }],
};
const model = (url: string, more: object = {}) =>
  openaiModel({ baseUrl: url, apiKey: 'k', backoffMs: 1, maxRetries: 0, ...more });

describe('hostile model wire: the stream', () => {
  it('parses a 48 MB single SSE line in seconds', { timeout: 180_000 }, async () => {
    await measured('hostile', 'model wire: a 48 MB single SSE line', null, async () => {
      const size = 48 * 1024 * 1024;
      const line = `data: ${event({ content: 'x'.repeat(size) }, 'stop')}\n\ndata: [DONE]\n\n`;
      const { url } = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(line);
      });
      const started = performance.now();
      const response = await model(url, { timeoutMs: 120_000 }).complete(request);
      const ms = performance.now() - started;
      expect(response.text.length).toBe(size);
      // Generous: linear parsing takes about a second; the quadratic reader took most of a minute.
      expect(ms).toBeLessThan(20_000);
      return { runs: 1, violations: 0, notes: `${Math.round(ms)} ms` };
    });
  });

  it('reads lone-CR and CRLF line ends, a BOM, and a character split across chunks', async () => {
    await measured('hostile', 'model wire: CR, CRLF, BOM and split characters', null, async () => {
      const euro = Buffer.from('€', 'utf8');
      const { url } = await serve((_req, res, attempt) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (attempt === 1)
          return void res.end(`data: ${event({ content: 'cr' }, 'stop')}\r\rdata: [DONE]\r\r`);
        if (attempt === 2)
          return void res.end(
            `\uFEFFdata: ${event({ content: 'crlf' }, 'stop')}\r\n\r\ndata: [DONE]\r\n\r\n`,
          );
        // The three bytes of € in two writes, apart in time, so fetch reads them as two chunks.
        const [head, tail] = `data: ${event({ content: '€' }, 'stop')}\n\ndata: [DONE]\n\n`.split('€');
        res.write(Buffer.concat([Buffer.from(head!), euro.subarray(0, 1)]));
        setTimeout(() => res.end(Buffer.concat([euro.subarray(1), Buffer.from(tail!)])), 50);
      });
      expect((await model(url).complete(request)).text).toBe('cr');
      expect((await model(url).complete(request)).text).toBe('crlf');
      expect((await model(url).complete(request)).text).toBe('€');
      return { runs: 3, violations: 0 };
    });
  });

  it('passes on an error sent inside the stream with the provider message', async () => {
    await measured('hostile', 'model wire: an error inside the stream', null, async () => {
      const { url } = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `data: ${JSON.stringify({ error: { message: 'Content Exists Risk', code: 'invalid_request' } })}\n\n`,
        );
      });
      await expect(model(url).complete(request)).rejects.toThrow(
        'the provider reported an error: Content Exists Risk (invalid_request)',
      );
      return { runs: 1, violations: 0 };
    });
  });

  it('keeps a reasoning stream that outlasts timeoutMs, and times out only on silence', async () => {
    await measured('hostile', 'model wire: long reasoning and a silent stream', null, async () => {
      const { url, seen } = await serve((_req, res, attempt) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (attempt === 2) return void res.write(`data: ${event({ reasoning_content: 'then silence' })}\n\n`);
        let sent = 0;
        const timer = setInterval(() => {
          if (++sent <= 30) return void res.write(`data: ${event({ reasoning_content: '.' })}\n\n`);
          clearInterval(timer);
          res.end(`data: ${event({ content: 'answer' }, 'stop')}\n\ndata: [DONE]\n\n`);
        }, 100);
      });
      const response = await model(url, { timeoutMs: 1000, maxRetries: 2 }).complete(request);
      expect(response).toMatchObject({ text: 'answer', reasoning: '.'.repeat(30) });
      await expect(model(url, { timeoutMs: 300, maxRetries: 2 }).complete(request)).rejects.toThrow(
        /sent nothing for 300 ms/,
      );
      // Neither stream was retried from scratch.
      expect(seen).toHaveLength(2);
      return { runs: 2, violations: 0 };
    });
  });

  it('does not wait for a Retry-After of an hour, and says why', async () => {
    await measured('hostile', 'model wire: a Retry-After over the cap', null, async () => {
      const { url, seen } = await serve((_req, res) => {
        res.writeHead(503, { 'retry-after': '3600' }).end('{"error":{"message":"Server busy"}}');
      });
      await expect(model(url, { maxRetries: 3 }).complete(request)).rejects.toThrow(
        /HTTP 503 .*Server busy \(the server asks to retry after 3600 s, longer than the 60 s this client waits\)/,
      );
      expect(seen).toHaveLength(1);
      return { runs: 1, violations: 0 };
    });
  });

  it('talks to a keyless local server without an Authorization header', async () => {
    await measured('hostile', 'model wire: a keyless local server', null, async () => {
      const saved = process.env.DEEPSEEK_API_KEY;
      delete process.env.DEEPSEEK_API_KEY;
      try {
        const { url, seen } = await serve((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`data: ${event({ content: 'local' }, 'stop')}\n\n`);
        });
        expect((await openaiModel({ baseUrl: url }).complete(request)).text).toBe('local');
        expect(seen[0]!.headers.authorization).toBeUndefined();
      } finally {
        if (saved !== undefined) process.env.DEEPSEEK_API_KEY = saved;
      }
      return { runs: 1, violations: 0 };
    });
  });
});

describe('hostile model wire: reasoning', () => {
  it('keeps DeepSeek’s rule: reasoning back within the tool loop, never for an earlier turn', async () => {
    await measured('hostile', 'model wire: reasoning_content rule', null, async () => {
      const { ctx } = await setup({ builtinTools: false });
      ctx.tools.register({
        name: 'echo',
        description: 'Echoes.',
        parameters: { type: 'object' },
        execute: () => ({ content: 'echoed' }),
      });
      const call = {
        tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'echo', arguments: '{}' } }],
      };
      thinking = await thinkingServer([
        [{ reasoning_content: 'one' }, call],
        [{ reasoning_content: 'two' }, { content: 'first done' }],
        [{ reasoning_content: 'three' }, call],
        [{ reasoning_content: 'four' }, { content: 'second done' }],
      ]);
      const agent = ctx.agents.create({
        session: ctx.sessions.create({ inMemory: true }),
        model: openaiModel({ baseUrl: thinking.url, apiKey: 'k', maxRetries: 0 }),
      });
      expect(await agent.prompt('first')).toEqual({ reason: 'done', text: 'first done' });
      expect(await agent.prompt('second')).toEqual({ reason: 'done', text: 'second done' });
      expect(thinking.requests).toHaveLength(4);
      return { runs: 4, violations: 0 };
    });
  });
});

/** Runs the built chat as a child process (the servers live in this process). */
function chat(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DEEPSEEK_API_KEY;
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'chat', ...args], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdin.end();
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function deployment(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-model-wire-'));
  writeFileSync(
    join(dir, 'cordis.yml'),
    `- name: host\n- name: mode\n- name: openai\n  config: { baseUrl: "${url}", maxRetries: 0, timeoutMs: 5000 }\n`,
  );
  return dir;
}

describe('hostile model wire: dsh-mode chat --prompt', () => {
  it('shows reasoning prefixed without colour', async () => {
    await measured('hostile', 'model wire: chat shows reasoning', null, async () => {
      thinking = await thinkingServer([
        [{ reasoning_content: 'weigh it\nthen answer' }, { content: 'Answer.' }],
      ]);
      const dir = deployment(thinking.url);
      const run = await chat(['--config', 'cordis.yml', '--prompt', 'hi'], dir);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('thinking: weigh it\nthinking: then answer\nAnswer.');
      return { runs: 1, violations: 0 };
    });
  });

  it('exits non-zero with the cause when the turn fails', async () => {
    await measured('hostile', 'model wire: chat --prompt exit codes', null, async () => {
      const { url } = await serve((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}');
      });
      const rejected = await chat(['--config', 'cordis.yml', '--prompt', 'hi'], deployment(url));
      expect(rejected.code).toBe(2);
      expect(rejected.stdout).toMatch(/turn failed: .*HTTP 400 .*Model Not Exist/);
      const port = (server!.address() as AddressInfo).port;
      server!.closeAllConnections();
      await new Promise((done) => server!.close(done));
      server = undefined;
      const refused = await chat(
        ['--config', 'cordis.yml', '--prompt', 'hi'],
        deployment(`http://127.0.0.1:${port}`),
      );
      expect(refused.code).toBe(2);
      expect(refused.stdout).toMatch(/turn failed: .*the connection was refused \(ECONNREFUSED\)/);
      return { runs: 2, violations: 0 };
    });
  });
});

describe('hostile model wire: dsh-mode acp', () => {
  it('streams reasoning as agent_thought_chunk before the answer', async () => {
    await measured('hostile', 'model wire: acp thought chunks', null, async () => {
      thinking = await thinkingServer([[{ reasoning_content: 'pondering' }, { content: 'Answer.' }]]);
      const dir = deployment(thinking.url);
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.DEEPSEEK_API_KEY;
      const child = spawn(process.execPath, [BIN, 'acp', '--config', 'cordis.yml'], { cwd: dir, env });
      const received: { id?: number; method?: string; params?: any; result?: any }[] = [];
      // Every message of the agent's matches the ACP schema (checked when the test ends).
      const schema = watchAgentMessages();
      let buffer = '';
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const waiters: (() => void)[] = [];
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        const lines = (buffer + text).split('\n');
        buffer = lines.pop()!;
        for (const line of lines) {
          if (line.trim() === '') continue;
          received.push(JSON.parse(line));
          schema.received(received.at(-1));
        }
        for (const wake of waiters.splice(0)) wake();
      });
      const call = async (id: number, method: string, params: unknown): Promise<any> => {
        const request = { jsonrpc: '2.0', id, method, params };
        schema.sent(request);
        child.stdin.write(JSON.stringify(request) + '\n');
        for (;;) {
          const answer = received.find((m) => m.id === id && m.method === undefined);
          if (answer) return answer;
          if (child.exitCode !== null) throw new Error(`acp exited: ${stderr}`);
          await new Promise<void>((wake) => waiters.push(wake));
        }
      };
      try {
        await call(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
        const created = await call(2, 'session/new', { cwd: dir, mcpServers: [] });
        const sessionId = created.result.sessionId as string;
        const done = await call(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
        expect(done.result?.stopReason, stderr).toBe('end_turn');
        const chunks = received
          .filter((m) => m.method === 'session/update' && m.params.sessionId === sessionId)
          .map((m) => m.params.update)
          .filter(
            (u) => u.sessionUpdate === 'agent_thought_chunk' || u.sessionUpdate === 'agent_message_chunk',
          )
          .map((u) => [u.sessionUpdate, u.content.text]);
        expect(chunks).toEqual([
          ['agent_thought_chunk', 'pondering'],
          ['agent_message_chunk', 'Answer.'],
        ]);
      } finally {
        child.stdin.end();
        await new Promise((exit) => (child.exitCode !== null ? exit(null) : child.on('close', exit)));
      }
      return { runs: 1, violations: 0 };
    });
  });
});
