/**
 * Invariants 5 and 6 and the `ctx.modes` API: user flips, their landing at boundaries, and narration. Real:
 * cordis Context, the host's sessions, agents, loop and scripted model; downstream `session/event` listeners are
 * real listeners. The failing append is a real session whose `append` throws for one `mode/set`.
 */
import { describe, expect, it } from 'vitest';
import type { Session, SessionEvent } from '../../src/host/index.js';
import { narration, UnknownModeError } from '../../src/engine/index.js';
import { agentOf, eventsOf, setup, types } from './setup.js';

const CONFIG = {
  modes: { review: { description: 'Read and comment.', tools: { read: 'allow' }, default: 'deny' } },
} as const;

/** The `mode/set` and `context/message` events, as `[type, mode or text]`. */
const flips = (events: readonly SessionEvent[]) =>
  events
    .filter((event) => event.type === 'mode/set' || event.type === 'context/message')
    .map((event) => [
      event.type,
      event.type === 'mode/set'
        ? (event.data as { mode: string }).mode
        : (event.data as { text: string }).text,
    ]);

describe('ctx.modes', () => {
  it('list(): default first, then the configured modes in load order, each with its description', async () => {
    const { ctx } = await setup({ config: CONFIG });
    expect(ctx.modes.list()).toEqual([
      { name: 'default', description: 'No mode: the full toolset, no policy.' },
      {
        name: 'plan',
        description:
          'Explore read-only and propose a plan; the full toolset returns only after a human approves it.',
      },
      { name: 'review', description: 'Read and comment.' },
    ]);
  });

  it('get(): current from the fold, pending when parked, defined', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'ok' }]);
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
    expect(ctx.modes.set(agent, 'plan')).toEqual({ current: 'default', pending: 'plan', defined: true });
    await agent.prompt('go');
    expect(ctx.modes.get(agent)).toEqual({ current: 'plan', defined: true });
  });

  it('set(): an unknown name is a loud error listing the available modes; default is always valid', async () => {
    const { ctx } = await setup({ config: CONFIG });
    const { agent } = agentOf(ctx, []);
    expect(() => ctx.modes.set(agent, 'plna')).toThrow(UnknownModeError);
    expect(() => ctx.modes.set(agent, 'plna')).toThrow(
      'unknown mode `plna`; available modes: default, plan, review; did you mean `plan`?',
    );
    // Nothing near: no guess.
    expect(() => ctx.modes.set(agent, 'zzzzzz')).toThrow(/available modes: default, plan, review$/);
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
    expect(ctx.modes.set(agent, 'default')).toEqual({ current: 'default', defined: true });
  });
});

describe('invariant 5: user flips land at the next boundary', () => {
  it('a flip set while idle lands as the event right after the next turn/start', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'ok' }]);
    ctx.modes.set(agent, 'plan');
    expect(agent.session.events).toHaveLength(0);
    await agent.prompt('go');
    expect(types(agent.session.events).slice(0, 3)).toEqual(['turn/start', 'mode/set', 'user/message']);
  });

  it('a flip set mid-step lands right after that step/end, so the rest of the step runs under the old mode', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [
      {
        text: 'Two calls.',
        tool_calls: [
          { name: 'list', arguments: { path: '.' } },
          { name: 'write', arguments: { path: 'a.txt', content: 'a' } },
        ],
      },
      { text: 'Done.' },
    ]);
    ctx.on('session/event', async (_session, event, next) => {
      await next();
      if (event.type === 'tool/call' && (event.data as { name: string }).name === 'list')
        ctx.modes.set(agent, 'plan');
    });
    await agent.prompt('go');
    const events = agent.session.events;
    expect(eventsOf(events, 'tool/result').map((event) => event.data.isError)).toEqual([false, false]);
    const at = types(events).indexOf('mode/set');
    expect(events[at - 1]!.type).toBe('step/end');
  });

  it('a set() that arrives while a downstream listener awaits still lands at that boundary', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [
      { text: 'One.', tool_calls: [{ name: 'list', arguments: { path: '.' } }] },
      { text: 'Two.' },
    ]);
    let stepEnds = 0;
    ctx.on('session/event', async (_session, event, next) => {
      await next();
      if (event.type !== 'step/end' || ++stepEnds !== 1) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
      ctx.modes.set(agent, 'plan');
    });
    await agent.prompt('go');
    const list = types(agent.session.events);
    expect(list.slice(list.indexOf('step/end'), list.indexOf('step/end') + 3)).toEqual([
      'step/end',
      'mode/set',
      'context/message',
    ]);
  });

  it('a net-zero sequence leaves no mode/set and no notice', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'ok' }, { text: 'ok' }]);
    await agent.prompt('first');
    expect(ctx.modes.set(agent, 'plan').pending).toBe('plan');
    expect(ctx.modes.set(agent, 'default')).toEqual({ current: 'default', defined: true });
    await agent.prompt('second');
    expect(flips(agent.session.events)).toEqual([]);
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
  });

  it('a target equal to pending ?? current is dropped', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'ok' }]);
    expect(ctx.modes.set(agent, 'default')).toEqual({ current: 'default', defined: true });
    ctx.modes.set(agent, 'plan');
    expect(ctx.modes.set(agent, 'plan')).toEqual({ current: 'default', pending: 'plan', defined: true });
    await agent.prompt('go');
    expect(eventsOf(agent.session.events, 'mode/set')).toHaveLength(1);
  });

  it('a failed append warns once, keeps the intent, and lands it at the next boundary', async () => {
    const { ctx, warnings } = await setup();
    const session: Session = ctx.sessions.create({ inMemory: true });
    const append = session.append.bind(session);
    let failures = 2;
    (session as { append: Session['append'] }).append = (async (type: string, data: unknown) => {
      if (type === 'mode/set' && failures > 0) {
        failures--;
        throw new Error('disk full');
      }
      return append(type as never, data as never);
    }) as Session['append'];
    const { agent, model } = agentOf(
      ctx,
      [
        { text: 'One.', tool_calls: [{ name: 'list', arguments: { path: '.' } }] },
        { text: 'Two.', tool_calls: [{ name: 'list', arguments: { path: '.' } }] },
        { text: 'Three.' },
      ],
      {},
      session,
    );
    ctx.modes.set(agent, 'plan');
    await agent.prompt('go');
    // turn/start and the first step/end failed; the second step/end landed it.
    const list = types(session.events);
    expect(list.filter((type) => type === 'step/end')).toHaveLength(3);
    const at = list.indexOf('mode/set');
    expect(session.events[at - 1]!.type).toBe('step/end');
    expect(session.events.slice(0, at).filter((event) => event.type === 'step/end')).toHaveLength(2);
    expect(ctx.modes.get(agent)).toEqual({ current: 'plan', defined: true });
    expect(warnings.filter((w) => w.includes('could not record the switch to plan mode'))).toHaveLength(1);
    expect(model.requests[2]!.header.tools.map((tool) => tool.name)).not.toContain('write');
  });
});

describe('invariant 6: a landed user flip is narrated exactly when the model last saw another mode', () => {
  it('appends exactly one notice right after its mode/set, worded for the target mode', async () => {
    const { ctx } = await setup();
    const { agent, model } = agentOf(ctx, [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    await agent.prompt('one');
    ctx.modes.set(agent, 'plan');
    await agent.prompt('two');
    ctx.modes.set(agent, 'default');
    await agent.prompt('three');
    expect(flips(agent.session.events)).toEqual([
      ['mode/set', 'plan'],
      ['context/message', 'The user switched this session to plan mode.'],
      ['mode/set', 'default'],
      [
        'context/message',
        'The user switched this session to default mode: the full toolset is available again.',
      ],
    ]);
    const list = types(agent.session.events);
    expect(list.slice(list.indexOf('mode/set') - 1, list.indexOf('mode/set') + 3)).toEqual([
      'turn/start',
      'mode/set',
      'context/message',
      'user/message',
    ]);
    expect(narration('review')).toBe('The user switched this session to review mode.');
    // The notice is a surface event: the model reads it just before the user's message.
    expect(model.requests[1]!.messages.slice(-2)).toEqual([
      { role: 'user', content: 'The user switched this session to plan mode.' },
      { role: 'user', content: 'two' },
    ]);
  });

  it('a notice that cannot be appended is reported; the landed flip stays landed', async () => {
    const { ctx, warnings } = await setup();
    const session: Session = ctx.sessions.create({ inMemory: true });
    const append = session.append.bind(session);
    (session as { append: Session['append'] }).append = (async (type: string, data: unknown) => {
      if (type === 'context/message') throw new Error('disk full');
      return append(type as never, data as never);
    }) as Session['append'];
    const { agent } = agentOf(ctx, [{ text: 'a' }, { text: 'b' }], {}, session);
    await agent.prompt('one');
    ctx.modes.set(agent, 'plan');
    await agent.prompt('two');
    expect(flips(session.events)).toEqual([['mode/set', 'plan']]);
    expect(
      warnings.filter((w) => w.includes('could not narrate the switch to plan mode: disk full')),
    ).toHaveLength(1);
  });

  it('is silent before the first header (the section states the mode)', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'a' }]);
    ctx.modes.set(agent, 'plan');
    await agent.prompt('one');
    expect(flips(agent.session.events)).toEqual([['mode/set', 'plan']]);
  });

  it('compares with the mode at the last request header, not with the previous landing', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'a' }, { text: 'b' }]);
    let flipAtEnd = true;
    ctx.on('session/event', async (_session, event, next) => {
      await next();
      if (event.type === 'step/end' && flipAtEnd) {
        flipAtEnd = false;
        ctx.modes.set(agent, 'plan');
      }
    });
    await agent.prompt('one');
    // Landed plan at the last step/end (narrated: the header said default); no header has shown plan since.
    ctx.modes.set(agent, 'default');
    await agent.prompt('two');
    expect(flips(agent.session.events)).toEqual([
      ['mode/set', 'plan'],
      ['context/message', 'The user switched this session to plan mode.'],
      ['mode/set', 'default'],
    ]);
  });
});
