/**
 * A loopback chat-completions server that enforces DeepSeek's rule for thinking mode with tools: every assistant
 * message with tool calls after the last user message (the current turn's tool-call loop) carries its
 * `reasoning_content`, and no assistant message before it does. A request that breaks the rule gets HTTP 400 with
 * the reason, as DeepSeek answers it; the others get the next scripted answer (a list of stream deltas).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WireMessage = { role: string; reasoning_content?: unknown; tool_calls?: unknown[] };

/** Why DeepSeek would refuse these messages, or null when they keep the rule. */
export function ruleBroken(messages: WireMessage[]): string | null {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    const has = typeof message.reasoning_content === 'string';
    if (index > lastUser && message.tool_calls?.length && !has)
      return `Missing \`reasoning_content\` field in the assistant message at message index ${index}`;
    if (index < lastUser && has) return `reasoning_content of an earlier turn at message index ${index}`;
  }
  return null;
}

/** A running server: its base URL, every request's messages, and how to stop it. */
export interface ThinkingServer {
  url: string;
  requests: WireMessage[][];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 with one scripted answer per accepted request. */
export async function thinkingServer(answers: unknown[][]): Promise<ThinkingServer> {
  const requests: WireMessage[][] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const messages = (JSON.parse(body) as { messages: WireMessage[] }).messages;
      requests.push(messages);
      const broken = ruleBroken(messages);
      if (broken) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: broken, type: 'invalid_request_error' } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const delta of answers[next++] ?? [{ content: 'out of answers' }])
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
