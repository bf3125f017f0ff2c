/**
 * A step sees every change made before it: a tool registered or removed, a section added or reordered, a schema
 * replaced by a listener. Each input changes between two steps of one turn, and the next request, the log and its
 * replay must all show the change. The model is handed the transcript without a copy (it is folded from the log
 * with a cursor), so a model that resizes it must still get the true transcript, and a resumed journal must yield
 * the transcript a live run had.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildTranscript,
  diffHeaders,
  replayHeaders,
  scriptedModel,
  type Model,
  type ModelRequest,
  type SessionEvent,
  type Tool,
} from '../../src/host/index.js';
import { setup } from './setup.js';

const echo: Tool<{ say: string }> = {
  name: 'echo',
  description: 'Echo.',
  parameters: { type: 'object', properties: { say: { type: 'string' } }, required: ['say'] },
  execute: (args) => ({ content: args.say }),
};

const call = { name: 'echo', arguments: { say: 'x' } };
const sentHeaders = (model: { requests: Omit<ModelRequest, 'signal'>[] }): string[] =>
  model.requests.map((request) => JSON.stringify(request.header));
const replayed = (events: readonly SessionEvent[]): string[] =>
  replayHeaders(events).map((header) => JSON.stringify(header));

describe('each step sees what changed before it', () => {
  it('a tool registered or removed mid-turn is in (or out of) the very next request, the log and its replay', async () => {
    const { ctx } = await setup({ builtinTools: false });
    let disposeLate: (() => void) | undefined;
    ctx.tools.register({
      ...echo,
      execute: (args) => {
        if (disposeLate) disposeLate();
        else
          disposeLate = ctx.tools.register({
            name: 'late',
            description: 'Late.',
            parameters: {},
            execute: () => ({ content: 'l' }),
          });
        return { content: args.say };
      },
    });
    const model = scriptedModel([{ tool_calls: [call] }, { tool_calls: [call] }, { text: 'end' }]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    const names = model.requests.map((request) => request.header.tools.map((tool) => tool.name));
    expect(names).toEqual([['echo'], ['echo', 'late'], ['echo']]);
    const logged = agent.session.events.filter((event) => event.type.startsWith('request/header'));
    expect(logged.map((event) => event.type)).toEqual([
      'request/header',
      'request/header-delta',
      'request/header-delta',
    ]);
    expect(replayed(agent.session.events)).toEqual(sentHeaders(model));
  });

  it('a section added, removed or reordered by a listener mid-turn shows in the next assembly', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    ctx.systemPrompt.section({ name: 'b', order: 10, text: 'B' });
    let step = 0;
    let disposeA: (() => void) | undefined;
    ctx.on('session/event', async (_session, event, next) => {
      await next();
      if (event.type !== 'step/end') return;
      step += 1;
      if (step === 1) disposeA = ctx.systemPrompt.section({ name: 'a', order: 0, text: 'A' });
      if (step === 2) disposeA!();
    });
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      // Appended out of order: the render order still wins.
      if (step === 3) assembly.sections.push({ name: 'first', order: -1, text: 'F' });
      return assembly;
    });
    const model = scriptedModel([
      { tool_calls: [call] },
      { tool_calls: [call] },
      { tool_calls: [call] },
      { text: 'end' },
    ]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    expect(model.requests.map((request) => request.header.system)).toEqual(['B', 'A\n\nB', 'B', 'F\n\nB']);
    expect(ctx.systemPrompt.names()).toEqual(['b']);
    expect(replayed(agent.session.events)).toEqual(sentHeaders(model));
  });

  it('a listener that replaces a schema gets the replacement sent and logged; the registry keeps its own', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    let step = 0;
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      step += 1;
      if (step === 2) assembly.tools = assembly.tools.map((tool) => ({ ...tool, description: 'Changed.' }));
      // The schemas are shared and frozen: editing one in place is refused, not silently sent or leaked.
      if (step === 3)
        expect(() => ((assembly.tools[0] as { description?: string }).description = 'x')).toThrow(TypeError);
      return assembly;
    });
    const model = scriptedModel([{ tool_calls: [call] }, { tool_calls: [call] }, { text: 'end' }]);
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    expect(model.requests.map((request) => request.header.tools[0]!.description)).toEqual([
      'Echo.',
      'Changed.',
      'Echo.',
    ]);
    expect(replayed(agent.session.events)).toEqual(sentHeaders(model));
  });

  it('hands the model frozen messages; a model that resizes the array still gets the true transcript next', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    const seen: string[] = [];
    const answers = [{ tool_calls: [call] }, { tool_calls: [call] }, { text: 'end' }];
    const inner = scriptedModel(answers, { record: false });
    const model: Model = {
      name: 'rude',
      async complete(request, onChunk) {
        seen.push(JSON.stringify(request.messages));
        expect(Object.isFrozen(request.header)).toBe(true);
        expect(Object.isFrozen(request.messages.at(-1))).toBe(true);
        (request.messages as unknown[]).push({ role: 'user', content: 'injected' });
        return inner.complete(request, onChunk);
      },
    };
    const agent = ctx.agents.create({ session: ctx.sessions.create({ inMemory: true }), model });
    await agent.prompt('go');
    const events = agent.session.events;
    const answered = events.flatMap((event, index) => (event.type === 'assistant/message' ? [index] : []));
    expect(seen).toEqual(answered.map((index) => JSON.stringify(buildTranscript(events.slice(0, index)))));
    expect(seen.join('')).not.toContain('injected');
  });

  it('a resumed journal gives the model the transcript and headers the live run had', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.tools.register(echo);
    const session = ctx.sessions.create({ id: 'live' });
    const live = scriptedModel([
      { tool_calls: [call, { name: 'echo', arguments: { say: 'ünïcødé ✓ 🎉' } }] },
      { text: 'one' },
      { tool_calls: [{ name: 'nope', arguments: {} }] },
      { text: 'two' },
      { text: 'three' },
    ]);
    const agent = ctx.agents.create({ session, model: live });
    await agent.prompt('1');
    await agent.prompt('2 — “quoted”');
    await agent.prompt('3');
    const liveEvents = structuredClone(session.events);
    const lastLive = live.requests.at(-1)!;
    session.close();
    // The bytes on disk are the events as JSON lines, multi-byte text included.
    const file = session.file!;
    expect(readFileSync(file, 'utf8')).toBe(liveEvents.map((event) => JSON.stringify(event) + '\n').join(''));

    const resumed = await ctx.sessions.resume('live');
    expect(resumed.events).toEqual(liveEvents);
    const next = scriptedModel([{ text: 'four' }]);
    await ctx.agents.create({ session: resumed, model: next }).prompt('4');
    const first = next.requests[0]!;
    // What the live run would have sent for turn 4: its last transcript, its last answer, the new prompt.
    expect(first.messages).toEqual([
      ...lastLive.messages,
      { role: 'assistant', content: 'three', toolCalls: [] },
      { role: 'user', content: '4' },
    ]);
    expect(first.header).toEqual(lastLive.header);
    resumed.close();
    expect(replayed(ctx.sessions.read('live'))).toEqual([...sentHeaders(live), ...sentHeaders(next)]);
  });
});

describe('diffHeaders over one tool list', () => {
  const tool = (name: string) => Object.freeze({ name, description: name, parameters: {} });

  it('says nothing changed for a sealed list of unique names, and only the system text when that changed', () => {
    const tools = Object.freeze([tool('a'), tool('b')]);
    const a = { system: 'x', tools: tools as never };
    expect(diffHeaders(a, { system: 'x', tools: tools as never })).toEqual({});
    expect(diffHeaders(a, { system: 'x', tools: tools as never })).toEqual({});
    expect(diffHeaders(a, { system: 'y', tools: tools as never })).toEqual({ system: 'y' });
  });

  it('falls back to a full header for a list with a duplicate name, however often it is seen', () => {
    const tools = Object.freeze([tool('a'), tool('a')]);
    const header = { system: 'x', tools: tools as never };
    expect(diffHeaders(header, header)).toBeNull();
    expect(diffHeaders(header, header)).toBeNull();
  });

  it('does not remember a list that can still change: a duplicate added later is seen', () => {
    const tools = [tool('a'), tool('b')];
    const header = { system: 'x', tools: tools as never };
    expect(diffHeaders(header, header)).toEqual({});
    tools.push(tool('a'));
    expect(diffHeaders(header, header)).toBeNull();
  });
});
