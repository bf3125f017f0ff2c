/**
 * The OpenAI-compatible model against a real node:http server on 127.0.0.1 speaking the chat-completions SSE wire
 * format: streamed text, fragmented tool-call arguments, the request body (system, tools, transcript), retry on
 * 429/5xx, a malformed stream, a connection dropped mid-answer, a timeout, cancellation, and the key check.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiModel, type ModelRequest } from '../../src/host/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, attempt: number) => void;
let server: Server | undefined;

async function serve(handler: Handler): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      handler(req, res, body, bodies.length);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, bodies };
}

afterEach(async () => {
  const current = server;
  server = undefined;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((resolve) => current.close(resolve));
});

function sse(res: ServerResponse, chunks: unknown[], done = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  if (done) res.end('data: [DONE]\n\n');
}

const delta = (d: unknown, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

const request: ModelRequest = {
  header: {
    system: 'Be brief.',
    tools: [{ name: 'read', description: 'Read.', parameters: { type: 'object' } }],
  },
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: '', toolCalls: [{ callId: 'c1', name: 'read', arguments: { path: 'a' } }] },
    { role: 'tool', callId: 'c1', name: 'read', content: 'A', isError: false },
  ],
};

const options = (url: string) => ({ baseUrl: url, apiKey: 'test-key', backoffMs: 1, model: 'm' });

describe('openaiModel()', () => {
  it('streams text and assembles fragmented tool calls; sends system, tools and transcript', async () => {
    const { url, bodies } = await serve((req, res) => {
      expect(req.url).toBe('/v1/chat/completions');
      expect(req.headers.authorization).toBe('Bearer test-key');
      sse(res, [
        delta({ role: 'assistant', content: 'Look' }),
        delta({ content: 'ing.' }),
        delta({
          tool_calls: [
            { index: 0, id: 'x1', type: 'function', function: { name: 'read', arguments: '{"pa' } },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'th": "RE' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'x2', function: { name: 'list', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'ADME.md"}' } }] }, 'tool_calls'),
      ]);
    });
    const chunks: string[] = [];
    const response = await openaiModel(options(url)).complete(request, (chunk) => chunks.push(chunk.text));
    expect(chunks).toEqual(['Look', 'ing.']);
    expect(response).toEqual({
      text: 'Looking.',
      toolCalls: [
        { name: 'read', arguments: { path: 'README.md' } },
        { name: 'list', arguments: {} },
      ],
    });
    expect(JSON.parse(bodies[0]!)).toEqual({
      model: 'm',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'A' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Read.', parameters: { type: 'object' } },
        },
      ],
    });
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    const { url, bodies } = await serve((_req, res, _body, attempt) => {
      if (attempt === 1) return void res.writeHead(429, { 'retry-after': '0' }).end('slow down');
      if (attempt === 2) return void res.writeHead(503).end('busy');
      sse(res, [delta({ content: 'ok' }, 'stop')]);
    });
    expect((await openaiModel(options(url)).complete(request)).text).toBe('ok');
    expect(bodies).toHaveLength(3);
  });

  it('gives up after maxRetries and does not retry a 400', async () => {
    const failing = await serve((_req, res) => void res.writeHead(500).end('down'));
    await expect(openaiModel({ ...options(failing.url), maxRetries: 2 }).complete(request)).rejects.toThrow(
      /HTTP 500/,
    );
    expect(failing.bodies).toHaveLength(3);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    const bad = await serve((_req, res) => void res.writeHead(400).end('{"error":"bad tools"}'));
    await expect(openaiModel(options(bad.url)).complete(request)).rejects.toThrow(/HTTP 400 .*bad tools/);
    expect(bad.bodies).toHaveLength(1);
  });

  it('reports a malformed stream', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {oops\n\n');
    });
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(/malformed stream .*\{oops/);
  });

  it('reports a connection dropped mid-answer, without retrying what was streamed', async () => {
    const { url, bodies } = await serve((_req, res) => {
      sse(res, [delta({ content: 'partial' })], false);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    // The socket dies inside the chunked body, so fetch's stream errors (its own wording follows the colon).
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(
      /^the connection dropped mid-answer: \S/,
    );
    expect(bodies).toHaveLength(1);
  });

  it('reports a stream that ends cleanly before the answer finished, without retrying it', async () => {
    const { url, bodies } = await serve((_req, res) => {
      sse(res, [delta({ content: 'partial' })], false);
      res.end();
    });
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(
      /^the stream ended before the answer finished$/,
    );
    expect(bodies).toHaveLength(1);
  });

  it('times out a silent server', async () => {
    const { url } = await serve(() => {});
    await expect(
      openaiModel({ ...options(url), timeoutMs: 100, maxRetries: 0 }).complete(request),
    ).rejects.toThrow(/within 100 ms/);
  });

  it('stops at once when the request is cancelled', async () => {
    const { url } = await serve((_req, res) => sse(res, [delta({ content: 'a' })], false));
    const controller = new AbortController();
    const pending = openaiModel(options(url)).complete({ ...request, signal: controller.signal }, () =>
      controller.abort(),
    );
    await expect(pending).rejects.toThrow(/abort/i);
  });

  it('sends no Authorization header without a key, and says which variable to set on a 401', async () => {
    const saved = process.env.DEEPSEEK_API_KEY;
    delete process.env.DEEPSEEK_API_KEY;
    try {
      const seen: (string | undefined)[] = [];
      const { url } = await serve((req, res, body) => {
        seen.push(req.headers.authorization);
        if (body.includes('"locked"'))
          return void res.writeHead(401).end('{"error":{"message":"key needed"}}');
        sse(res, [delta({ content: 'local' }, 'stop')]);
      });
      const keyless = openaiModel({ baseUrl: url, backoffMs: 1 });
      expect((await keyless.complete(request)).text).toBe('local');
      expect(seen).toEqual([undefined]);
      const locked = { ...request, messages: [{ role: 'user' as const, content: 'locked' }] };
      await expect(keyless.complete(locked)).rejects.toThrow(/HTTP 401 .*key needed .*set DEEPSEEK_API_KEY/);
      await expect(openaiModel({ baseUrl: url, apiKeyEnv: 'DSH_TEST_KEY' }).complete(locked)).rejects.toThrow(
        /set DSH_TEST_KEY/,
      );
    } finally {
      if (saved !== undefined) process.env.DEEPSEEK_API_KEY = saved;
    }
  });

  it('reads the key from the variable apiKeyEnv names, and apiKey wins over it', async () => {
    const seen: (string | undefined)[] = [];
    const { url } = await serve((req, res) => {
      seen.push(req.headers.authorization);
      sse(res, [delta({ content: 'ok' }, 'stop')]);
    });
    process.env.DSH_TEST_KEY = 'from-env';
    try {
      await openaiModel({ baseUrl: url, apiKeyEnv: 'DSH_TEST_KEY' }).complete(request);
      await openaiModel({ baseUrl: url, apiKeyEnv: 'DSH_TEST_KEY', apiKey: 'from-config' }).complete(request);
    } finally {
      delete process.env.DSH_TEST_KEY;
    }
    expect(seen).toEqual(['Bearer from-env', 'Bearer from-config']);
  });

  it('passes on an error the provider sends inside the stream, with its message', async () => {
    const { url, bodies } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(delta({ content: 'par' }))}\n\n`);
      res.end(
        `data: ${JSON.stringify({ error: { message: 'Model overloaded', type: 'server_error' } })}\n\n`,
      );
    });
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(
      /^the provider reported an error: Model overloaded \(server_error\)$/,
    );
    expect(bodies).toHaveLength(1);
  });

  it('gives the provider message of an HTTP error, not its JSON', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(402).end('{"error":{"message":"Insufficient Balance","type":"unknown_error"}}');
    });
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(
      /^HTTP 402 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: Insufficient Balance \(unknown_error\)$/,
    );
  });

  it('names a refused connection and a host that is not found', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await expect(
      openaiModel({ ...options(`http://127.0.0.1:${port}`), maxRetries: 1 }).complete(request),
    ).rejects.toThrow(/cannot reach .*: the connection was refused \(ECONNREFUSED\)/);
    await expect(
      openaiModel({ ...options('http://no-such-host.invalid'), maxRetries: 0 }).complete(request),
    ).rejects.toThrow(/cannot reach .*: the host name (was not found|could not be looked up) \(DNS\)/);
  });

  it('keeps a slow stream that is still sending: the timeout is on silence, not on length', async () => {
    const { url, bodies } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      // 30 pieces 100 ms apart: 3 s in all, three times the 1 s limit, and never silent for long.
      const timer = setInterval(() => {
        if (++sent <= 30)
          return void res.write(`data: ${JSON.stringify(delta({ reasoning_content: 'm' }))}\n\n`);
        clearInterval(timer);
        res.end(`data: ${JSON.stringify(delta({ content: 'done' }, 'stop'))}\n\ndata: [DONE]\n\n`);
      }, 100);
    });
    const started = Date.now();
    const response = await openaiModel({ ...options(url), timeoutMs: 1000 }).complete(request);
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(response).toEqual({ text: 'done', reasoning: 'm'.repeat(30), toolCalls: [] });
    expect(bodies).toHaveLength(1);
  });

  it('times out a stream that goes silent mid-answer, without retrying it', async () => {
    const { url, bodies } = await serve((_req, res) => sse(res, [delta({ reasoning_content: 'hm' })], false));
    await expect(openaiModel({ ...options(url), timeoutMs: 150 }).complete(request)).rejects.toThrow(
      /^the stream from .* sent nothing for 150 ms$/,
    );
    expect(bodies).toHaveLength(1);
  });

  it('does not wait a Retry-After over the cap, and says so', async () => {
    const { url, bodies } = await serve(
      (_req, res) => void res.writeHead(429, { 'retry-after': '3600' }).end('later'),
    );
    await expect(openaiModel(options(url)).complete(request)).rejects.toThrow(
      /^HTTP 429 .*: later \(the server asks to retry after 3600 s, longer than the 60 s this client waits\)$/,
    );
    expect(bodies).toHaveLength(1);
  });
});

describe('openaiModel() on the real loop', () => {
  it('runs a tool call and a final answer, sending the tool result back with its call id', async () => {
    const { setup } = await import('./setup.js');
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register({
      name: 'shout',
      description: 'Upper-cases.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args: { text: string }) => ({ content: args.text.toUpperCase() }),
    });
    const { url, bodies } = await serve((_req, res, _body, attempt) => {
      if (attempt === 1) {
        sse(res, [
          delta({
            tool_calls: [{ index: 0, id: 'srv1', function: { name: 'shout', arguments: '{"text":' } }],
          }),
          delta({ tool_calls: [{ index: 0, function: { arguments: '"hi"}' } }] }, 'tool_calls'),
        ]);
      } else sse(res, [delta({ content: 'HI it is.' }, 'stop')]);
    });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: openaiModel(options(url)),
    });
    expect(await agent.prompt('shout hi')).toEqual({ reason: 'done', text: 'HI it is.' });
    const second = JSON.parse(bodies[1]!) as { messages: unknown[] };
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1_1_1', type: 'function', function: { name: 'shout', arguments: '{"text":"hi"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1_1_1', content: 'HI' },
    ]);
  });
});
