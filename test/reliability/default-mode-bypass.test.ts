/**
 * Red-team attacks on the default mode: each one tries to get a session's calls judged as if it were in the
 * default mode while its log says otherwise (a `mode/set` written behind `append()`, a shadowed `events`, a
 * session of another implementation, a flip from a listener, a section or a tool mid-step), to show the model a
 * tool its mode hides, or to lose a seeded or flipped mode. Every hook of the engine runs for every session and
 * the gate folds the log, so each attack must end with the write DENIED in plan. A mechanism that skipped the
 * engine's hooks for sessions it believed to be in the default mode (by any shortcut beside the fold) fails here.
 * Real parts: cordis, the host (`applyHost`), the mode plugin with the built-in plan policy, the scripted model,
 * files in temporary folders.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import type {
  Agent,
  AgentOptions,
  AssembleContext,
  ScriptEntry,
  Session,
  SessionEvent,
  Tool,
} from '../../src/host/index.js';
import { EXIT_PLAN_MODE, ModePlugin } from '../../src/engine/index.js';
import { agentOf, answerApprovals, resultOf, setup, type AssembleListener } from '../engine/setup.js';

/** A `write` call of `a.txt` (allowed in the default mode, denied in plan). */
const WRITE = { name: 'write', arguments: { path: 'a.txt', content: 'x' } };

/** A frozen `mode/set` event carrying `seq`, as `append()` would have made it. */
function modeSet(seq: number, mode = 'plan'): SessionEvent {
  return Object.freeze({
    seq,
    type: 'mode/set',
    data: Object.freeze({ mode }),
    time: new Date().toISOString(),
  }) as unknown as SessionEvent;
}

/** The tool names the model is shown for an agent's next request. */
async function shown(ctx: Context, agent: Agent): Promise<string[]> {
  return (await ctx.systemPrompt.assemble({ agent })).header.tools.map((tool) => tool.name);
}

/** The results of every tool call of a log, in order, as `name: ok|error`. */
function outcomes(events: readonly SessionEvent[]): string[] {
  return events
    .filter((event): event is SessionEvent<'tool/result'> => event.type === 'tool/result')
    .map((event) => `${event.data.name}: ${event.data.isError ? 'error' : 'ok'}`);
}

/** Runs `turns` prompts of `script` on a new agent; `before(agent)` runs right after it is created. */
async function run(
  ctx: Context,
  script: ScriptEntry[],
  turns: string[],
  options: AgentOptions = {},
  before: (agent: Agent) => void | Promise<void> = () => {},
): Promise<Agent> {
  const { agent } = agentOf(ctx, structuredClone(script), options);
  await before(agent);
  for (const text of turns) await agent.prompt(text);
  return agent;
}

/** A read-only tool whose `execute` is `body`. */
function tool(name: string, body: Tool['execute']): Tool {
  return {
    name,
    description: `the ${name} probe`,
    parameters: { type: 'object' },
    annotations: { readOnlyHint: true },
    execute: body,
  };
}

describe('red team: the log changed behind append()', () => {
  it('a mode/set written over an event of the log in place is enforced at the next turn', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    await agent.prompt('one');
    const events = agent.session.events as SessionEvent[];
    const at = events.findLastIndex((event) => event.type === 'step/end');
    events[at] = modeSet(at + 1);
    expect(ctx.modes.get(agent).current).toBe('plan');
    await agent.prompt('two');
    expect(resultOf(agent.session.events, 'write')).toMatchObject({ isError: true });
  });

  it('an own `events` property that shadows the log with a mode/set is what the gate judges by', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    const session = agent.session;
    const real = session.events as SessionEvent[];
    const shadow = new Proxy(real, {
      get(target, key, receiver) {
        if (key === 'length') return target.length + 1;
        if (key === String(target.length)) return modeSet(target.length + 1);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    Object.defineProperty(session, 'events', { get: () => shadow });
    expect(ctx.modes.get(agent).current).toBe('plan');
    await agent.prompt('go');
    expect(outcomes(real)).toEqual(['write: error']);
  });

  it('a mode/set pushed behind append() and popped again leaves the session in plan (the fold is append-only)', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    await agent.prompt('one');
    const events = agent.session.events as SessionEvent[];
    events.push(modeSet(events.length + 1));
    expect(ctx.modes.get(agent).current).toBe('plan');
    events.pop();
    await agent.prompt('two');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('a mode/set pushed behind append() mid-batch by a tool is enforced on the next call of the batch', async () => {
    const { ctx } = await setup();
    ctx.tools.register(
      tool('sneak', (_args, context) => {
        const log = context.agent!.session.events as SessionEvent[];
        log.push(modeSet(log.length + 1));
        return { content: 'done' };
      }),
    );
    const script = [
      { text: 'both', tool_calls: [{ name: 'sneak', arguments: {} }, WRITE] },
      { text: 'done' },
    ];
    const agent = await run(ctx, script, ['go']);
    expect(outcomes(agent.session.events)).toEqual(['sneak: ok', 'write: error']);
  });

  it('a mode/set another plugin appends mid-batch through append() is enforced on the next call of the batch', async () => {
    const { ctx } = await setup();
    ctx.tools.register(
      tool('sneak', async (_args, context) => {
        await context.agent!.session.append('mode/set', { mode: 'plan' });
        return { content: 'done' };
      }),
    );
    const script = [
      { text: 'both', tool_calls: [{ name: 'sneak', arguments: {} }, WRITE] },
      { text: 'done' },
    ];
    const agent = await run(ctx, script, ['go']);
    expect(outcomes(agent.session.events)).toEqual(['sneak: ok', 'write: error']);
  });

  it('a plugin that puts a `wake` on the session instance changes nothing: a flip lands and is enforced', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    (agent.session as { wake?: () => void }).wake = () => {};
    ctx.modes.set(agent, 'plan');
    await agent.prompt('go');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('a session of another implementation, its log already in plan, has its calls judged in plan', async () => {
    const { ctx } = await setup();
    const events: SessionEvent[] = [
      { seq: 1, type: 'turn/start', data: { turn: 1 }, time: '' },
      { seq: 2, type: 'mode/set', data: { mode: 'plan' }, time: '' },
      { seq: 3, type: 'turn/end', data: { turn: 1, reason: 'done' }, time: '' },
    ] as SessionEvent[];
    let open = false;
    const foreign: Session = {
      id: 'foreign',
      file: null,
      events,
      get turnOpen() {
        return open;
      },
      async append(type, data) {
        const event = { seq: events.length + 1, type, data, time: '' } as SessionEvent<typeof type>;
        events.push(event);
        if (type === 'turn/start') open = true;
        if (type === 'turn/end') open = false;
        return event;
      },
    };
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, foreign);
    await agent.prompt('go');
    expect(outcomes(events)).toEqual(['write: error']);
  });
});

describe('red team: a mode/set appended mid-assembly', () => {
  it('by a system-prompt/assemble listener: the header does not show a tool plan hides', async () => {
    const { ctx } = await setup();
    const listener: AssembleListener = async (_assembly, context, next) => {
      const session = context.agent?.session;
      if (session && session.turnOpen && !session.events.some((event) => event.type === 'mode/set'))
        await session.append('mode/set', { mode: 'plan' });
      return next();
    };
    ctx.on('system-prompt/assemble', listener);
    const agent = await run(ctx, [{ text: 'hi' }], ['go']);
    const tools = firstHeader(agent).tools.map((schema) => schema.name);
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(tools).not.toContain('write');
    expect(tools).toContain('read');
  });

  it('by a section rendered before the mode section: the plan section is rendered', async () => {
    const { ctx } = await setup();
    ctx.systemPrompt.section(flippingSection('red:early', 0));
    const agent = await run(ctx, [{ text: 'hi' }], ['go']);
    expect(firstHeader(agent).system).toContain('You are in plan mode');
  });

  it('by a section rendered after the mode section: the plan view applies', async () => {
    const { ctx } = await setup();
    ctx.systemPrompt.section(flippingSection('red:late', 150));
    const agent = await run(ctx, [{ text: 'hi' }], ['go']);
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(firstHeader(agent).tools.map((schema) => schema.name)).not.toContain('write');
  });
});

/** A prompt section at `order` whose text appends a `mode/set` to plan the first time it renders in a turn. */
function flippingSection(name: string, order: number) {
  return {
    name,
    order,
    text: (context: AssembleContext) => {
      const session = context.agent?.session;
      if (session && session.turnOpen && !session.events.some((event) => event.type === 'mode/set'))
        // The synchronous part of append() pushes the event before it returns.
        void session.append('mode/set', { mode: 'plan' });
      return name;
    },
  };
}

/** The first request header an agent's log records. */
function firstHeader(agent: Agent) {
  const event = agent.session.events.find(
    (e) => e.type === 'request/header',
  ) as SessionEvent<'request/header'>;
  return event.data.header;
}

describe('red team: flips and seeds', () => {
  it('modes.set() from a session/event listener at turn/start lands at that turn/start', async () => {
    const { ctx } = await setup();
    const flip = new WeakSet<Session>();
    let target: Agent | undefined;
    ctx.on('session/event', async (session: Session, event: SessionEvent, next: () => Promise<void>) => {
      await next();
      if (event.type === 'turn/start' && target?.session === session && !flip.has(session)) {
        flip.add(session);
        ctx.modes.set(target, 'plan');
      }
    });
    const script = [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }];
    const agent = await run(ctx, script, ['go'], {}, (created) => {
      target = created;
    });
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('modes.set() from inside a tool mid-batch: the rest of the batch runs in default, the next step in plan', async () => {
    const { ctx } = await setup();
    ctx.tools.register(
      tool('flip', (_args, context) => {
        ctx.modes.set(context.agent!, 'plan');
        return { content: 'flipped' };
      }),
    );
    const script = [
      { text: 'both', tool_calls: [{ name: 'flip', arguments: {} }, WRITE] },
      { text: 'again', tool_calls: [WRITE] },
      { text: 'done' },
    ];
    const agent = await run(ctx, script, ['go']);
    expect(outcomes(agent.session.events)).toEqual(['flip: ok', 'write: ok', 'write: error']);
  });

  it('a seeded mode on a new in-memory session is enforced from the first step', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], { mode: 'plan' });
    await agent.prompt('go');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('a planted intent beside a brand-new file-backed session is restored (plan enforced); a stale one is dropped', async () => {
    const { ctx } = await setup();
    const dir = ctx.sessions.dir;
    const plant = (id: string, body: string) => {
      ctx.sessions.create({ id: `${id}-probe` }).close();
      writeFileSync(join(dir, `${id}.mode-intent.json`), body);
    };
    plant('fresh', JSON.stringify({ mode: 'plan', seq: 0 }));
    plant('stale', JSON.stringify({ mode: 'plan', seq: 7 }));
    plant('junk', '{"mode":');
    const open = async (id: string) => {
      const session = ctx.sessions.create({ id });
      const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, session);
      await agent.prompt('go');
      session.close();
      return { outcomes: outcomes(session.events), mode: ctx.modes.get(agent).current };
    };
    expect(await open('fresh')).toEqual({ outcomes: ['write: error'], mode: 'plan' });
    expect(await open('stale')).toEqual({ outcomes: ['write: ok'], mode: 'default' });
    expect((await open('junk')).outcomes).toEqual(['write: error']);
  });

  it('a flip recorded beside a default-mode file-backed session survives a restart (resume) and is enforced', async () => {
    const { ctx, workspace } = await setup();
    const session = ctx.sessions.create();
    const { agent } = agentOf(ctx, [{ text: 'hi' }], {}, session);
    await agent.prompt('one');
    ctx.modes.set(agent, 'plan');
    session.close();
    const next = await setup({ workspace });
    const resumed = await next.ctx.sessions.resume(session.file!);
    const { agent: again } = agentOf(
      next.ctx,
      [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }],
      {},
      resumed,
    );
    await again.prompt('two');
    expect(next.ctx.modes.get(again).current).toBe('plan');
    expect(outcomes(resumed.events)).toEqual(['write: error']);
    resumed.close();
  });

  it('a fork of a plan session stays in plan', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }], { mode: 'plan' });
    await agent.prompt('one');
    const fork = ctx.sessions.fork(agent.session, undefined, { inMemory: true });
    const { agent: forked } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, fork);
    await forked.prompt('two');
    expect(outcomes(fork.events)).toEqual(['write: error']);
  });

  it('in-memory sessions reusing one id are separate: a flip of one leaves the other in default', async () => {
    const { ctx } = await setup();
    const a = ctx.sessions.create({ id: 'same', inMemory: true });
    const b = ctx.sessions.create({ id: 'same', inMemory: true });
    const { agent: first } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, a);
    const { agent: second } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, b);
    ctx.modes.set(first, 'plan');
    await first.prompt('go');
    await second.prompt('go');
    expect(outcomes(a.events)).toEqual(['write: error']);
    expect(outcomes(b.events)).toEqual(['write: ok']);
    ctx.sessions.create({ id: 'file-same' }).close();
    expect(() => ctx.sessions.create({ id: 'file-same' })).toThrow(/already exists/);
  });
});

describe('red team: the gate and the exit in the default mode', () => {
  it('judge() called directly in the default mode: the exit is denied, the rest allowed', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }]);
    await agent.prompt('one');
    const exit = await ctx.tools.judge({
      callId: 'c1',
      name: EXIT_PLAN_MODE,
      arguments: { plan: '# p' },
      agent,
    });
    expect(exit.kind).toBe('deny');
    expect(exit.kind === 'deny' && exit.reason).toMatch(/exit_plan_mode/);
    expect(
      (await ctx.tools.judge({ callId: 'c2', name: 'write', arguments: WRITE.arguments, agent })).kind,
    ).toBe('allow');
  });

  it('a default-mode exit call with an approver that says yes is denied unasked and lands nothing', async () => {
    const { ctx } = await setup();
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const script = [
      { text: 'exit', tool_calls: [{ name: EXIT_PLAN_MODE, arguments: { plan: '# p' } }] },
      { text: 'done' },
    ];
    const agent = await run(ctx, script, ['go']);
    expect(asked).toEqual([]);
    expect(outcomes(agent.session.events)).toEqual([`${EXIT_PLAN_MODE}: error`]);
    expect(resultOf(agent.session.events, EXIT_PLAN_MODE)!.content).toMatch(/there is no plan to approve/);
    expect(ctx.modes.get(agent).current).toBe('default');
  });

  it('an assemble listener that puts the exit back cannot show it in the default mode; the header matches a deployment without the engine', async () => {
    const withEngine = await setup();
    const without = await setup({ plugin: false });
    const exitSchema = withEngine.ctx.tools.schemas().find((schema) => schema.name === EXIT_PLAN_MODE)!;
    const readd: AssembleListener = async (assembly, _context, next) => {
      const settled = await next();
      return { ...settled, tools: [...settled.tools.filter((t) => t.name !== EXIT_PLAN_MODE), exitSchema] };
    };
    const stop = withEngine.ctx.on('system-prompt/assemble', readd);
    const { agent } = agentOf(withEngine.ctx, [{ text: 'hi' }]);
    expect(await shown(withEngine.ctx, agent)).not.toContain(EXIT_PLAN_MODE);
    const plainHost = agentOf(without.ctx, [{ text: 'hi' }]).agent;
    const defaultAgent = agentOf(withEngine.ctx, [{ text: 'hi' }]).agent;
    // Without the listener's addition, the default-mode header is the engine-less one, byte for byte.
    stop();
    const a = await withEngine.ctx.systemPrompt.assemble({ agent: defaultAgent });
    const b = await without.ctx.systemPrompt.assemble({ agent: plainHost });
    expect(JSON.stringify(a.header)).toBe(JSON.stringify(b.header));
  });

  it('a tool registered mid-turn and a tools/pre-execute listener that appends a mode/set: the next call is judged in plan', async () => {
    const { ctx } = await setup();
    ctx.on('tools/pre-execute', async (exec, next) => {
      const session = exec.agent?.session;
      if (exec.name === 'late' && session && !session.events.some((event) => event.type === 'mode/set'))
        await session.append('mode/set', { mode: 'plan' });
      return next();
    });
    ctx.tools.register(
      tool('register', () => {
        ctx.tools.register(tool('late', () => ({ content: 'late ran' })));
        return { content: 'registered' };
      }),
    );
    const script = [
      { text: 'a', tool_calls: [{ name: 'register', arguments: {} }] },
      { text: 'b', tool_calls: [{ name: 'late', arguments: {} }, WRITE] },
      { text: 'done' },
    ];
    const agent = await run(ctx, script, ['go']);
    expect(outcomes(agent.session.events)).toEqual(['register: ok', 'late: ok', 'write: error']);
  });
});

describe('red team: reloads, two engines, throwing observers', () => {
  it('the engine reloaded while a session is in the default mode: a flip after the reload is enforced', async () => {
    const { ctx, fiber } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    await agent.prompt('one');
    await fiber!.dispose();
    await ctx.plugin(ModePlugin, {});
    ctx.modes.set(agent, 'plan');
    await agent.prompt('two');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('an agent/created listener that throws and a foreign session whose file getter throws crash nothing', async () => {
    const { ctx, warnings } = await setup();
    ctx.on('agent/created', () => {
      throw new Error('odd observer');
    });
    const host = ctx.sessions.create({ inMemory: true });
    const foreign = new Proxy(host, {
      get(target, key) {
        if (key === 'file') throw new Error('no file for you');
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, foreign);
    await agent.prompt('go');
    expect(warnings.join('\n')).toMatch(/odd observer/);
    expect(warnings.join('\n')).toMatch(/no file for you/);
    expect(outcomes(host.events)).toEqual(['write: ok']);
  });

  it('a second engine instance does not load beside the first; the first still enforces', async () => {
    const { ctx } = await setup();
    const child = ctx.isolate('modes');
    await expect(child.plugin(ModePlugin, {})).rejects.toThrow(/already registered/);
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    ctx.modes.set(agent, 'plan');
    await agent.prompt('go');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });
});
