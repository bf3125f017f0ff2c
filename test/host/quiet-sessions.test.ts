/**
 * Quiet sessions (`Session` in src/host/types.ts): a host session that starts empty is quiet until a plugin's own
 * event type is appended or `wake()` is called, and the hooks registered `skipWhenQuiet` (guard, view, section,
 * `after` listener) are not called for it; a tool registered `hiddenWhenQuiet` is hidden there and judged by every
 * guard. Also the `when` option of emitted contained events. Real: a cordis Context with the host applied, real
 * sessions (in memory and on disk), hooks registered through the public API.
 */
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { JournalSession } from '../../src/host/session.js';
import { scriptedModel } from '../../src/host/index.js';
import type { PreExecuteResult, Session, SessionEvent, ToolExec } from '../../src/host/types.js';
import { setup } from './setup.js';

const host = () => setup({ builtinTools: false });

const tool = (name: string, hiddenWhenQuiet?: boolean) => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object' },
  ...(hiddenWhenQuiet !== undefined ? { hiddenWhenQuiet } : {}),
  execute: () => ({ content: `${name} ran` }),
});

/** An agent on `session` whose model calls `names` in one step, then answers. */
function agentCalling(ctx: Context, session: Session, names: string[]) {
  const model = scriptedModel([
    { text: 'calling', tool_calls: names.map((name) => ({ name, arguments: {} })) },
    { text: 'done' },
  ]);
  return { agent: ctx.agents.create({ session, model }), model };
}

describe('which sessions are quiet', () => {
  it('a new session is quiet; host events keep it so, a plugin event type wakes it before any listener sees it', async () => {
    const { ctx } = await host();
    const seen: boolean[] = [];
    ctx.on('session/event', async (session: Session, event: SessionEvent, next: () => Promise<void>) => {
      if ((event.type as string) === 'x/custom') seen.push(JournalSession.isQuiet(session));
      await next();
    });
    const session = ctx.sessions.create({ inMemory: true });
    expect(session.quiet).toBe(true);
    await session.append('turn/start', { turn: 1 });
    await session.append('user/message', { text: 'hi' });
    await session.append('context/message', { text: 'note' });
    expect(session.quiet).toBe(true);
    await (session.append as (type: string, data: unknown) => Promise<unknown>)('x/custom', {});
    expect(seen).toEqual([false]);
    expect(session.quiet).toBe(false);
  });

  it('wake() ends it for good, and a file-backed session is quiet too', async () => {
    const { ctx } = await host();
    const session = ctx.sessions.create();
    expect(session.quiet).toBe(true);
    session.wake();
    expect(session.quiet).toBe(false);
    await session.append('turn/start', { turn: 1 });
    expect(session.quiet).toBe(false);
  });

  it('a resumed or forked session is never quiet', async () => {
    const { ctx } = await host();
    const source = ctx.sessions.create();
    await source.append('turn/start', { turn: 1 });
    await source.append('turn/end', { turn: 1, reason: 'done' });
    const fork = ctx.sessions.fork(source, 2, { inMemory: true });
    expect(fork.quiet).toBe(false);
    source.close();
    const resumed = await ctx.sessions.resume(source.file!);
    expect(resumed.quiet).toBe(false);
  });

  it('a session whose events array was changed other than by append() is not quiet', async () => {
    const { ctx } = await host();
    const session = ctx.sessions.create({ inMemory: true });
    (session.events as SessionEvent[]).push({
      seq: 1,
      type: 'turn/start',
      data: { turn: 1 },
      time: '',
    } as SessionEvent);
    expect(session.quiet).toBe(false);
    // Putting the array back does not make it quiet again: what was in it meanwhile is unknown.
    (session.events as SessionEvent[]).pop();
    expect(session.quiet).toBe(false);
  });

  it('anything but a host session is never quiet, and asking never throws', async () => {
    const { ctx } = await host();
    const session = ctx.sessions.create({ inMemory: true });
    expect(JournalSession.isQuiet(session)).toBe(true);
    expect(JournalSession.isQuiet(new Proxy(session, {}))).toBe(false);
    expect(JournalSession.isQuiet(Object.create(JournalSession.prototype))).toBe(false);
    expect(JournalSession.isQuiet({ events: [], quiet: true })).toBe(false);
    for (const value of [undefined, null, 1, 'quiet', () => true])
      expect(JournalSession.isQuiet(value)).toBe(false);
  });
});

describe('hooks registered skipWhenQuiet', () => {
  it('a guard is not asked about a quiet session’s calls, but is about a hiddenWhenQuiet tool and once woken', async () => {
    const { ctx } = await host();
    const asked: string[] = [];
    const deny = (exec: ToolExec): PreExecuteResult => {
      asked.push(exec.name);
      return { kind: 'deny', reason: `no ${exec.name}` };
    };
    ctx.tools.register(tool('open'));
    ctx.tools.register(tool('secret', true));
    ctx.tools.guard(deny, { skipWhenQuiet: true });
    const session = ctx.sessions.create({ inMemory: true });
    const { agent } = agentCalling(ctx, session, ['open', 'secret']);
    await agent.prompt('go');
    const results = session.events.filter((e) => e.type === 'tool/result').map((e) => e.data);
    expect(results.map((r) => [r.name, r.content])).toEqual([
      ['open', 'open ran'],
      ['secret', 'Error: no secret'],
    ]);
    expect(asked).toEqual(['secret']);

    session.wake();
    const again = agentCalling(ctx, session, ['open']);
    await again.agent.prompt('again');
    expect(asked).toEqual(['secret', 'open']);
    expect(session.events.filter((e) => e.type === 'tool/result').at(-1)!.data.content).toBe(
      'Error: no open',
    );
  });

  it('a guard without the option, and any guard for an agent-less call, is always asked', async () => {
    const { ctx } = await host();
    const asked: string[] = [];
    ctx.tools.register(tool('open'));
    ctx.tools.guard((exec) => (asked.push(`loud ${exec.name}`), { kind: 'allow' }));
    ctx.tools.guard((exec) => (asked.push(`quiet ${exec.name}`), { kind: 'allow' }), { skipWhenQuiet: true });
    const session = ctx.sessions.create({ inMemory: true });
    const { agent } = agentCalling(ctx, session, ['open']);
    await agent.prompt('go');
    expect(asked).toEqual(['loud open']);
    await ctx.tools.execute({ callId: 'c', name: 'open', arguments: {} });
    expect(asked).toEqual(['loud open', 'loud open', 'quiet open']);
  });

  it('judge() of an unregistered name from a quiet session asks every guard', async () => {
    const { ctx } = await host();
    ctx.tools.guard(() => ({ kind: 'deny', reason: 'nothing unknown' }), { skipWhenQuiet: true });
    const session = ctx.sessions.create({ inMemory: true });
    const { agent } = agentCalling(ctx, session, []);
    const verdict = await ctx.tools.judge({ callId: 'c', name: 'ghost', arguments: {}, agent });
    expect(verdict).toMatchObject({ kind: 'deny', reason: 'nothing unknown' });
  });

  it('a view and a section are skipped for a quiet session; hiddenWhenQuiet tools stay hidden even if a listener re-adds them', async () => {
    const { ctx } = await host();
    ctx.tools.register(tool('open'));
    ctx.tools.register(tool('secret', true));
    ctx.systemPrompt.section({ name: 'loud', order: 10, text: 'always' });
    ctx.systemPrompt.section({ name: 'hush', order: 20, text: 'only when awake', skipWhenQuiet: true });
    let keyed = 0;
    ctx.systemPrompt.view({
      key: () => ++keyed,
      keep: (schema) => schema.name !== 'open',
      skipWhenQuiet: true,
    });
    const secret = ctx.tools.get('secret')!;
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      const settled = await next();
      // Hands the hidden tool back in, after the host's own assembly.
      return {
        ...settled,
        tools: [
          ...settled.tools,
          { name: 'secret', description: secret.description, parameters: secret.parameters },
        ],
      };
    });
    const session = ctx.sessions.create({ inMemory: true });
    const { agent } = agentCalling(ctx, session, []);
    const quiet = await ctx.systemPrompt.assemble({ agent });
    expect(quiet.header.system).toBe('always');
    expect(quiet.header.tools.map((t) => t.name)).toEqual(['open']);
    expect(keyed).toBe(0);

    session.wake();
    const awake = await ctx.systemPrompt.assemble({ agent });
    expect(awake.header.system).toBe('always\n\nonly when awake');
    expect(awake.header.tools.map((t) => t.name)).toEqual(['secret', 'secret']);
    expect(keyed).toBe(1);
  });

  it('a tool registered or removed between two assemblies of a quiet session shows up, or goes, at once', async () => {
    const { ctx } = await host();
    ctx.tools.register(tool('open'));
    const session = ctx.sessions.create({ inMemory: true });
    const { agent } = agentCalling(ctx, session, []);
    const names = async () => (await ctx.systemPrompt.assemble({ agent })).header.tools.map((t) => t.name);
    expect(await names()).toEqual(['open']);
    const disposeSecret = ctx.tools.register(tool('secret', true));
    const disposeExtra = ctx.tools.register(tool('extra'));
    expect(await names()).toEqual(['open', 'extra']);
    disposeExtra();
    expect(await names()).toEqual(['open']);
    disposeSecret();
    ctx.tools.register(tool('secret', false));
    expect(await names()).toEqual(['open', 'secret']);
  });

  it('an after listener is not asked about a quiet session’s events, and is once an earlier one woke it', async () => {
    const { ctx } = await host();
    const asked: string[] = [];
    ctx.on(
      'session/event',
      async (session: Session, event: SessionEvent) => {
        if (event.type === 'user/message') session.wake!();
      },
      {
        after: (_s: Session, event: SessionEvent) => (
          asked.push(`waker ${event.type}`),
          event.type === 'user/message'
        ),
      },
    );
    ctx.on('session/event', async () => {}, {
      after: (_s: Session, event: SessionEvent) => (asked.push(`quiet ${event.type}`), false),
      skipWhenQuiet: true,
    });
    const session = ctx.sessions.create({ inMemory: true });
    await session.append('turn/start', { turn: 1 });
    await session.append('user/message', { text: 'hi' });
    await session.append('step/start', { step: 1 });
    expect(asked).toEqual([
      'waker turn/start',
      'waker user/message',
      'quiet user/message',
      'waker step/start',
      'quiet step/start',
    ]);
  });

  it('an after listener without skipWhenQuiet is asked about a quiet session’s events for as long as its plugin lives', async () => {
    const { ctx } = await host();
    const asked: string[] = [];
    ctx.on('session/event', async () => {}, {
      after: () => (asked.push('quiet'), false),
      skipWhenQuiet: true,
    });
    const fiber = ctx.plugin({
      name: 'loud-after',
      apply(plugin: Context) {
        plugin.on('session/event', async () => {}, { after: () => (asked.push('loud'), false) });
      },
    });
    await fiber;
    // A skipping one that comes and goes leaves the loud one asked.
    const passing = ctx.plugin({
      name: 'passing-after',
      apply(plugin: Context) {
        plugin.on('session/event', async () => {}, { after: () => false, skipWhenQuiet: true });
      },
    });
    await passing;
    await passing.dispose();
    const session = ctx.sessions.create({ inMemory: true });
    await session.append('turn/start', { turn: 1 });
    expect(asked).toEqual(['loud']);
    await fiber.dispose();
    await session.append('user/message', { text: 'hi' });
    expect(asked).toEqual(['loud']);
    session.wake();
    await session.append('step/start', { step: 1 });
    expect(asked).toEqual(['loud', 'quiet']);
  });

  it('refuses options that are not what they say', async () => {
    const { ctx } = await host();
    expect(() => ctx.tools.guard(() => ({ kind: 'allow' }), { skipWhenQuiet: 'yes' as never })).toThrow(
      /skipWhenQuiet` must be a boolean/,
    );
    expect(() => ctx.tools.register({ ...tool('odd'), hiddenWhenQuiet: 1 as never })).toThrow(
      /hiddenWhenQuiet` must be a boolean/,
    );
    expect(() =>
      ctx.systemPrompt.view({ key: () => 1, keep: () => true, skipWhenQuiet: 'true' as never }),
    ).toThrow(/skipWhenQuiet` must be a boolean/);
    expect(() =>
      ctx.systemPrompt.section({ name: 's', order: 1, text: '', skipWhenQuiet: null as never }),
    ).toThrow(/skipWhenQuiet` must be a boolean/);
    expect(() => ctx.on('session/event', async () => {}, { skipWhenQuiet: true })).toThrow(
      /given with `after`/,
    );
    expect(() => ctx.on('session/event', async () => {}, { when: () => true })).toThrow(/`when` option/);
    expect(() => ctx.on('agent/created', () => {}, { when: 'always' as never })).toThrow(/`when` option/);
  });
});

describe('the `when` option of agent/created and tools/verdict', () => {
  it('calls the listener only when the predicate accepts; a throwing predicate is logged and the listener called', async () => {
    const { ctx, warnings } = await host();
    const called: string[] = [];
    ctx.on('agent/created', (agent) => void called.push(agent.id), {
      when: (agent: { options: { maxSteps?: number } }) => agent.options.maxSteps === 3,
    });
    ctx.on('agent/created', (agent) => void called.push(`fallback ${agent.id}`), {
      when: () => {
        throw new Error('predicate broke');
      },
    });
    const model = scriptedModel([{ text: 'x' }]);
    const session = () => ctx.sessions.create({ inMemory: true });
    ctx.agents.create({ session: session(), model });
    ctx.agents.create({ session: session(), model, options: { maxSteps: 3 } });
    expect(called).toEqual(['fallback agent-1', 'agent-2', 'fallback agent-2']);
    expect(warnings.filter((w) => w.includes('predicate broke'))).toHaveLength(2);
  });
});
