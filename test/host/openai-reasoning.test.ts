/**
 * A thinking model's reasoning (`reasoning_content`) on the real loop, against a loopback server that enforces
 * DeepSeek's rule for thinking mode with tools: every assistant message of the current turn's tool-call loop (after
 * the last user message) carries its `reasoning_content`, and no earlier assistant message does; a request that
 * breaks the rule is refused with HTTP 400, as DeepSeek refuses it. The reasoning is kept in the journal's
 * `assistant/message`, so a resumed session rebuilds the same requests.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiModel, type ModelChunk } from '../../src/host/index.js';
import { setup } from './setup.js';
import { ruleBroken, thinkingServer, type ThinkingServer, type WireMessage } from './thinking-server.js';

let server: ThinkingServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const call = (id: string) => ({
  tool_calls: [{ index: 0, id, type: 'function', function: { name: 'shout', arguments: '{"text":"hi"}' } }],
});

describe('openaiModel() reasoning on the real loop', () => {
  it('sends reasoning back inside the tool loop, never for earlier turns, and keeps it in the journal', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register({
      name: 'shout',
      description: 'Upper-cases.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args: { text: string }) => ({ content: args.text.toUpperCase() }),
    });
    server = await thinkingServer([
      [{ reasoning_content: 'I should ' }, { reasoning_content: 'shout.' }, call('a')],
      [{ reasoning_content: 'It worked.' }, { content: 'HI.' }],
      [{ reasoning_content: 'Again.' }, call('b')],
      [{ reasoning_content: 'Done again.' }, { content: 'HI again.' }],
    ]);
    const { url, requests } = server;
    const session = ctx.sessions.create();
    const chunks: ModelChunk[] = [];
    const agent = ctx.agents.create({
      session,
      model: openaiModel({ baseUrl: url, apiKey: 'k', maxRetries: 0 }),
      onChunk: (chunk) => chunks.push(chunk),
    });
    expect(await agent.prompt('shout hi')).toEqual({ reason: 'done', text: 'HI.' });
    expect(await agent.prompt('once more')).toEqual({ reason: 'done', text: 'HI again.' });
    expect(requests).toHaveLength(4);
    const reasoningOf = (messages: WireMessage[]) =>
      messages.filter((m) => m.role === 'assistant').map((m) => m.reasoning_content);
    expect(reasoningOf(requests[1]!)).toEqual(['I should shout.']);
    expect(reasoningOf(requests[2]!)).toEqual([undefined, undefined]);
    expect(reasoningOf(requests[3]!)).toEqual([undefined, undefined, 'Again.']);
    expect(chunks.filter((c) => c.kind === 'reasoning').map((c) => c.text)).toEqual([
      'I should ',
      'shout.',
      'It worked.',
      'Again.',
      'Done again.',
    ]);
    const logged = readFileSync(session.file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { reasoning?: string } })
      .filter((e) => e.type === 'assistant/message')
      .map((e) => e.data.reasoning);
    expect(logged).toEqual(['I should shout.', 'It worked.', 'Again.', 'Done again.']);
  });

  it('keeps the reasoning through a resume: the transcript rebuilt from the file carries it', async () => {
    const { ctx } = await setup({ builtinTools: false });
    let calls = 0;
    ctx.tools.register({
      name: 'shout',
      description: 'Upper-cases.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args: { text: string }) => ({ content: `${args.text.toUpperCase()}${++calls}` }),
    });
    server = await thinkingServer([
      [{ reasoning_content: 'Step one.' }, call('a')],
      [{ reasoning_content: 'Step two.' }, call('b')],
      [{ reasoning_content: 'Finish.' }, { content: 'ok' }],
    ]);
    const { url, requests } = server;
    const session = ctx.sessions.create();
    const model = openaiModel({ baseUrl: url, apiKey: 'k', maxRetries: 0 });
    const first = ctx.agents.create({ session, model, options: { maxSteps: 2 } });
    expect((await first.prompt('go')).reason).toBe('max-steps');
    session.close?.();
    // The third request comes from a transcript rebuilt from the file alone.
    const resumed = await ctx.sessions.resume(session.id);
    const { buildTranscript } = await import('../../src/host/transcript.js');
    const rebuilt = buildTranscript(resumed.events).filter((m) => m.role === 'assistant');
    expect(rebuilt.map((m) => (m.role === 'assistant' ? m.reasoning : null))).toEqual([
      'Step one.',
      'Step two.',
    ]);
    expect(requests.map((r) => ruleBroken(r))).toEqual([null, null]);
  });
});
