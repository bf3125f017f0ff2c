/**
 * The OpenAI-compatible adapter keys streamed tool-call fragments by the server's `index`, whatever it is: stored
 * in an array, a negative or fractional index made the call vanish silently (a property, not an element, so
 * `filter` skipped it), and a huge one (2^32 - 2) made a sparse array of four billion slots that `filter` walked
 * for minutes with the event loop blocked. Bad input from the wire must become a result or a precise error. Real
 * node:http server on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiModel, type ModelRequest } from '../../src/host/index.js';

let server: Server | undefined;
afterEach(async () => {
  const current = server;
  server = undefined;
  current?.closeAllConnections();
  if (current) await new Promise((resolve) => current.close(resolve));
});

async function answer(indexes: number[]): Promise<{ name: string; arguments: unknown }[]> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      indexes.forEach((index, n) => {
        const fragment = { index, id: `id${n}`, function: { name: `tool${n}`, arguments: `{"n":${n}}` } };
        const chunk = { choices: [{ index: 0, delta: { tool_calls: [fragment] }, finish_reason: null }] };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      });
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const model = openaiModel({ baseUrl: url, apiKey: 'k', model: 'm', maxRetries: 0 });
  const request: ModelRequest = {
    header: { system: '', tools: [] },
    messages: [{ role: 'user', content: 'x' }],
  };
  return (await model.complete(request)).toolCalls;
}

describe('streamed tool calls keyed by odd indexes', () => {
  it('negative and fractional indexes keep their calls, in index order', async () => {
    expect(await answer([3, -1, 0.5])).toEqual([
      { name: 'tool1', arguments: { n: 1 } },
      { name: 'tool2', arguments: { n: 2 } },
      { name: 'tool0', arguments: { n: 0 } },
    ]);
  });

  it('a huge index is one call, not four billion slots', async () => {
    expect(await answer([2 ** 32 - 2])).toEqual([{ name: 'tool0', arguments: { n: 0 } }]);
  });
});
