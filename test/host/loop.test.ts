/**
 * The agent loop on the real host (real Context, real tool runtime, in-memory or on-disk sessions) driven by the
 * scripted model: the event story of a turn, request headers (initial, delta, fallback, resume, nothing when
 * unchanged), byte-for-byte replay of every request header, the step limit, cancellation mid-tool, model errors.
 */
import { describe, expect, it } from 'vitest';
import {
  replayHeaders,
  scriptedModel,
  type Agent,
  type SessionEvent,
  type Tool,
} from '../../src/host/index.js';
import { setup } from './setup.js';

const types = (events: readonly SessionEvent[]): string[] => events.map((event) => event.type);

const echo: Tool<{ say: string }> = {
  name: 'echo',
  description: 'Echo.',
  parameters: { type: 'object', properties: { say: { type: 'string' } }, required: ['say'] },
  execute: (args) => ({ content: args.say }),
};

describe('agent.prompt()', () => {
  it('tells the turn as events: turn, user message, steps with header, answer, calls and results', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    const model = scriptedModel([
      { text: 'Calling.', tool_calls: [{ name: 'echo', arguments: { say: 'hi' } }] },
      { text: 'Done.' },
    ]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    const outcome = await agent.prompt('go');
    expect(outcome).toEqual({ reason: 'done', text: 'Done.' });
    expect(types(agent.session.events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'request/header',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    const result = agent.session.events.find((event) => event.type === 'tool/result')!;
    expect(result.data).toEqual({ callId: 'call_1_1_1', name: 'echo', content: 'hi', isError: false });
    expect(model.requests[1]!.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Calling.',
        toolCalls: [{ callId: 'call_1_1_1', name: 'echo', arguments: { say: 'hi' } }],
      },
      { role: 'tool', callId: 'call_1_1_1', name: 'echo', content: 'hi', isError: false },
    ]);
  });

  it('emits agent/created and passes the agent in the assemble context', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const created: Agent[] = [];
    const assembled: (Agent | undefined)[] = [];
    ctx.on('agent/created', (agent) => void created.push(agent));
    ctx.on('system-prompt/assemble', async (_assembly, context, next) => {
      assembled.push(context.agent);
      return next();
    });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([{ text: 'ok' }]),
    });
    await agent.prompt('x');
    expect(created).toEqual([agent]);
    expect(assembled).toEqual([agent]);
  });

  it('logs the initial header, then only what changed, then nothing when nothing changed', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'You are terse.' });
    ctx.tools.register(echo);
    let step = 0;
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      step += 1;
      if (step >= 2) assembly.sections.push({ name: 'extra', order: 10, text: 'Step two.' });
      if (step >= 2) assembly.tools = assembly.tools.filter((tool) => tool.name !== 'echo');
      return assembly;
    });
    const call = { name: 'echo', arguments: { say: 'x' } };
    const model = scriptedModel([
      { tool_calls: [call] },
      { tool_calls: [call] },
      { tool_calls: [call] },
      { text: 'end' },
    ]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    const headers = agent.session.events.filter((event) => event.type.startsWith('request/header'));
    expect(headers.map((event) => [event.type, event.data])).toEqual([
      ['request/header', { header: model.requests[0]!.header, reason: 'initial' }],
      ['request/header-delta', { system: 'You are terse.\n\nStep two.', removed: ['echo'] }],
    ]);
    expect(replayHeaders(agent.session.events).map((h) => JSON.stringify(h))).toEqual(
      model.requests.map((request) => JSON.stringify(request.header)),
    );
  });

  it('logs added, changed and reordered tools as a delta, and duplicate names as a fallback header', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    ctx.tools.register({ ...echo, name: 'second' });
    let step = 0;
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      step += 1;
      const extra = { name: 'third', description: 'Third.', parameters: { type: 'object' } };
      if (step === 2) assembly.tools = [extra, ...assembly.tools];
      if (step === 3)
        assembly.tools = [assembly.tools[1]!, { ...assembly.tools[0]!, description: 'Changed.' }];
      if (step === 4) assembly.tools = [...assembly.tools, assembly.tools[0]!];
      return assembly;
    });
    const call = { name: 'echo', arguments: { say: 'x' } };
    const model = scriptedModel([
      { tool_calls: [call] },
      { tool_calls: [call] },
      { tool_calls: [call] },
      { text: 'end' },
    ]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    const logged = agent.session.events
      .filter((event) => event.type.startsWith('request/header'))
      .map((event) => event.data);
    expect(logged[1]).toEqual({
      added: [{ name: 'third', description: 'Third.', parameters: { type: 'object' } }],
      order: ['third', 'echo', 'second'],
    });
    expect(logged[2]).toEqual({
      changed: [{ ...model.requests[2]!.header.tools[1]! }],
      removed: ['third'],
      order: ['second', 'echo'],
    });
    expect(logged[3]).toMatchObject({ reason: 'fallback' });
    expect(replayHeaders(agent.session.events).map((h) => JSON.stringify(h))).toEqual(
      model.requests.map((request) => JSON.stringify(request.header)),
    );
  });

  it('logs a full header with reason resume at the first request after a resume', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const session = ctx.sessions.create({ id: 'again' });
    await ctx.agents.create({ session, model: scriptedModel([{ text: 'one' }]) }).prompt('1');
    session.close();
    const resumed = await ctx.sessions.resume('again');
    const model = scriptedModel([{ text: 'two' }]);
    await ctx.agents.create({ session: resumed, model }).prompt('2');
    const headers = resumed.events.filter((event) => event.type === 'request/header');
    expect(headers.map((event) => (event.data as { reason: string }).reason)).toEqual(['initial', 'resume']);
    expect(model.requests[0]!.messages.map((message) => message.content)).toEqual(['1', 'one', '2']);
    resumed.close();
  });

  it('ends with max-steps at the step limit', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    const call = { name: 'echo', arguments: { say: 'again' } };
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([{ tool_calls: [call] }, { tool_calls: [call] }, { tool_calls: [call] }]),
      options: { maxSteps: 2 },
    });
    expect((await agent.prompt('loop')).reason).toBe('max-steps');
    expect(agent.session.events.filter((event) => event.type === 'step/start')).toHaveLength(2);
    expect(agent.session.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'max-steps' } });
  });

  it('ends with error when the model fails (the script runs out), closing the step', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([]),
    });
    const outcome = await agent.prompt('x');
    expect(outcome.reason).toBe('error');
    expect(types(agent.session.events).slice(-2)).toEqual(['step/end', 'turn/end']);
    expect(agent.session.events.at(-1)!.data).toMatchObject({
      error: expect.stringMatching(/no entry for request 1/),
    });
  });

  it('cancels mid-tool: the running tool gets the signal, later calls get a cancelled result, the turn ends cancelled', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const controller = new AbortController();
    let sawAbort = false;
    ctx.tools.register({
      name: 'wait',
      description: 'Waits until cancelled.',
      parameters: { type: 'object' },
      execute: (_args, context) =>
        new Promise((resolve) => {
          context.signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({ content: 'Error: interrupted', isError: true });
          });
          setImmediate(() => controller.abort());
        }),
    });
    ctx.tools.register(echo);
    const model = scriptedModel([
      {
        tool_calls: [
          { name: 'wait', arguments: {} },
          { name: 'echo', arguments: { say: 'never' } },
        ],
      },
      { text: 'unreached' },
    ]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    const outcome = await agent.prompt('go', { signal: controller.signal });
    expect(sawAbort).toBe(true);
    expect(outcome.reason).toBe('cancelled');
    const results = agent.session.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data);
    expect(results).toEqual([
      { callId: 'call_1_1_1', name: 'wait', content: 'Error: interrupted', isError: true },
      {
        callId: 'call_1_1_2',
        name: 'echo',
        content: 'Error: `echo` was cancelled before it ran',
        isError: true,
      },
    ]);
    expect(types(agent.session.events).slice(-2)).toEqual(['step/end', 'turn/end']);
    expect(model.remaining).toBe(1);
  });

  it('refuses a second prompt while a turn runs', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([{ text: 'a' }]),
    });
    const first = agent.prompt('1');
    await expect(agent.prompt('2')).rejects.toThrow(/already running a turn/);
    await first;
  });

  it('lets a session/event listener land an event right after step/end, before the next step', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    ctx.on('session/event', async (session, event, next) => {
      await next();
      if (event.type === 'step/end') await session.append('context/message', { text: 'after step' });
    });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([{ tool_calls: [{ name: 'echo', arguments: { say: 'x' } }] }, { text: 'done' }]),
    });
    await agent.prompt('go');
    const list = types(agent.session.events);
    expect(list[list.indexOf('step/end') + 1]).toBe('context/message');
    expect(list[list.indexOf('step/end') + 2]).toBe('step/start');
  });
});

describe('agent.prompt() failure paths', () => {
  it('ends cancelled when aborted while the model is answering', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const controller = new AbortController();
    const model = {
      name: 'slow',
      complete: (request: { signal?: AbortSignal }) =>
        new Promise<never>((_resolve, reject) => {
          request.signal!.addEventListener('abort', () => reject(new Error('aborted')));
          setImmediate(() => controller.abort());
        }),
    };
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    expect((await agent.prompt('x', { signal: controller.signal })).reason).toBe('cancelled');
    expect(types(agent.session.events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'request/header',
      'step/end',
      'turn/end',
    ]);
  });

  it('ends with error when an assemble listener throws', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.on('system-prompt/assemble', () => {
      throw new Error('bad section');
    });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([{ text: 'x' }]),
    });
    expect(await agent.prompt('x')).toEqual({ reason: 'error', text: '' });
    expect(agent.session.events.at(-1)!.data).toEqual({ turn: 1, reason: 'error', error: 'bad section' });
  });

  it('replays every header of a session across turns and a resume', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    let flip = false;
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      if (flip) assembly.tools = [];
      return assembly;
    });
    const session = ctx.sessions.create({ id: 'replay' });
    const first = scriptedModel([
      { tool_calls: [{ name: 'echo', arguments: { say: 'a' } }] },
      { text: 'one' },
    ]);
    await ctx.agents.create({ session, model: first }).prompt('1');
    session.close();
    flip = true;
    const resumed = await ctx.sessions.resume('replay');
    const second = scriptedModel([{ text: 'two' }, { text: 'three' }]);
    const agent = ctx.agents.create({ session: resumed, model: second });
    await agent.prompt('2');
    flip = false;
    await agent.prompt('3');
    resumed.close();
    const sent = [...first.requests, ...second.requests].map((request) => JSON.stringify(request.header));
    expect(replayHeaders(ctx.sessions.read('replay')).map((header) => JSON.stringify(header))).toEqual(sent);
  });
});

describe('headers with two agents on one session', () => {
  it('computes each delta against the header the log states, so the log stays replayable', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    ctx.on('system-prompt/assemble', async (_assembly, context, next) => {
      const assembly = await next();
      if (context.agent?.id === 'agent-2') assembly.tools = [];
      return assembly;
    });
    const session = ctx.sessions.create({ inMemory: true });
    const one = scriptedModel([{ text: 'a' }, { text: 'c' }]);
    const two = scriptedModel([{ text: 'b' }]);
    const first = ctx.agents.create({ session, model: one });
    const second = ctx.agents.create({ session, model: two });
    await first.prompt('1');
    await second.prompt('2');
    await first.prompt('3');
    const sent = [one.requests[0], two.requests[0], one.requests[1]].map((request) =>
      JSON.stringify(request!.header),
    );
    expect(replayHeaders(session.events).map((header) => JSON.stringify(header))).toEqual(sent);
  });
});

describe('HostPlugin', () => {
  it('mounts the whole host as one plugin and takes it down on dispose', async () => {
    const { Context } = await import('cordis');
    const { HostPlugin } = await import('../../src/host/index.js');
    const { tempDir } = await import('./setup.js');
    const ctx = new Context();
    const fiber = ctx.plugin(HostPlugin, { workspace: tempDir() });
    await fiber;
    expect(ctx.get('tools')?.names()).toContain('read');
    expect(ctx.get('agents')).toBeDefined();
    await fiber.dispose();
    expect(ctx.get('tools')).toBeUndefined();
    expect(ctx.get('sessions')).toBeUndefined();
  });
});
