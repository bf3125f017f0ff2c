/**
 * Red-team attacks on quiet sessions (invariant 11 in docs/architecture.md): the host skips every hook the mode
 * engine registers `skipWhenQuiet` (the gate, the tool view, the mode section, the landing listener) for a session
 * it counts quiet, on the engine's word that such a session is in the default mode with nothing pending. Each
 * attack tries to get a session out of the default mode (or give it an intent to land) while the host still counts
 * it quiet, to show the model a tool its mode hides, or to lose a seeded or flipped mode.
 *
 * Most attacks are differential: the same script runs on a quiet session and on a twin woken before its first
 * turn (`wake()`: every hook is called, which is how the engine behaved before quiet sessions), and the two must
 * agree. Real parts: cordis, the host (`applyHost`), the mode plugin with the built-in plan policy, the scripted
 * model, files in temporary folders. A hole that is fixed has a plain test that failed before its fix; a hole
 * whose fix is not small stays `it.fails(...)`, its comment naming the harm and the fix. Attacks that held are
 * plain tests, so they keep holding.
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
import { JournalSession } from '../../src/host/session.js';
import { EXIT_PLAN_MODE, ModePlugin } from '../../src/engine/index.js';
import { agentOf, answerApprovals, resultOf, setup, type AssembleListener } from '../engine/setup.js';

const isQuiet = (session: Session) => JournalSession.isQuiet(session);

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

/**
 * Runs `turns` prompts of `script` on two agents: one on a quiet session, one on a twin woken first (every hook
 * called). `before(agent)` runs right after each agent is created.
 */
async function twins(
  ctx: Context,
  script: ScriptEntry[],
  turns: string[],
  options: AgentOptions = {},
  before: (agent: Agent) => void | Promise<void> = () => {},
): Promise<{ quiet: Agent; woken: Agent }> {
  const run = async (wake: boolean) => {
    const { agent } = agentOf(ctx, structuredClone(script), options);
    if (wake) agent.session.wake!();
    await before(agent);
    for (const text of turns) await agent.prompt(text);
    return agent;
  };
  return { quiet: await run(false), woken: await run(true) };
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

describe('red team: quiet sessions, the log behind the host’s back', () => {
  it('control: a mode/set written over an event of a woken session’s log is enforced at the next turn', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    agent.session.wake!();
    await agent.prompt('one');
    const events = agent.session.events as SessionEvent[];
    const at = events.findLastIndex((event) => event.type === 'step/end');
    events[at] = modeSet(at + 1);
    await agent.prompt('two');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(resultOf(agent.session.events, 'write')).toMatchObject({ isError: true });
  });

  // HOLE (not fixed): `quiet` checks that the events array has the length `append()` gave it, not that it holds what
  // was appended. A plugin that writes a `mode/set` over an event in place (same length) leaves the session quiet:
  // the engine itself reports plan mode (`ctx.modes.get()` folds the log), yet its gate, view and section are
  // skipped, so `write` runs in "plan" mode and the header shows the default toolset; the woken twin above denies
  // it. Invariant 11 says "its events array exactly what was appended", which the length check cannot see. No O(1)
  // check can: the fix is to stop handing out the live array while quiet (the public `events` getter wakes the
  // session, or returns a read-only view; the host's own hot paths, `loop.ts` and `tool-runtime.ts`, read the
  // array through a private accessor instead), or to narrow the claim to "its length" and document that a log
  // rewritten in place is outside the contract (the fold's cursor already assumes an append-only array).
  it.fails(
    'a mode/set written over an event of a quiet session’s log in place is enforced at the next turn',
    async () => {
      const { ctx } = await setup();
      const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
      await agent.prompt('one');
      const events = agent.session.events as SessionEvent[];
      const at = events.findLastIndex((event) => event.type === 'step/end');
      events[at] = modeSet(at + 1);
      expect(ctx.modes.get(agent).current).toBe('plan');
      await agent.prompt('two');
      expect(resultOf(agent.session.events, 'write')).toMatchObject({ isError: true });
    },
  );

  // HOLE (not fixed), the same gap by another road: an own `events` property defined on the session instance shadows
  // the getter. The engine folds what `session.events` says (plan); the host counts the private array (unchanged,
  // quiet). Fix: as above, or freeze the session instance in the constructor (`Object.freeze(this)`: private fields
  // stay writable) so no own property can shadow `events`.
  it.fails(
    'an own `events` property that shadows the log of a quiet session cannot hide a mode/set from the gate',
    async () => {
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
      expect(isQuiet(session)).toBe(false);
    },
  );

  it('a session whose events array was changed stays awake once that was seen, even if the change is undone', async () => {
    // The README: "it never becomes quiet again". A mode/set pushed behind append() wakes the session (the engine
    // folds it: plan); popping it again used to make the session quiet once more, the engine still folding plan
    // (its cursor assumes an append-only array), so its hooks were skipped for a session it reported in plan.
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    await agent.prompt('one');
    const events = agent.session.events as SessionEvent[];
    events.push(modeSet(events.length + 1));
    expect(isQuiet(agent.session)).toBe(false);
    expect(ctx.modes.get(agent).current).toBe('plan');
    events.pop();
    expect(isQuiet(agent.session)).toBe(false);
    await agent.prompt('two');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  // HOLE (not fixed): `park()` wakes a session through its public `wake()`, which a plugin can shadow on the instance
  // (an observer that forgets to call through). The flip is then parked on a session the host still counts quiet:
  // the landing listener is never asked, so the flip never lands (lost), and the gate keeps allowing `write`. Fix:
  // make `wake` (and `events`, see above) non-writable, non-configurable own properties of each host session (or
  // freeze the instance), so what the engine calls is the host's own.
  it.fails('a flip survives a plugin that shadows session.wake() on the instance', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    (agent.session as { wake?: () => void }).wake = () => {};
    ctx.modes.set(agent, 'plan');
    await agent.prompt('go');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });
});

describe('red team: quiet sessions, waking mid-assembly', () => {
  it('a system-prompt/assemble listener that appends a mode/set cannot make the header show a tool plan hides', async () => {
    const { ctx } = await setup();
    const listener: AssembleListener = async (_assembly, context, next) => {
      const session = context.agent?.session;
      if (session && session.turnOpen && !session.events.some((event) => event.type === 'mode/set'))
        await session.append('mode/set', { mode: 'plan' });
      return next();
    };
    ctx.on('system-prompt/assemble', listener);
    const headers: string[][] = [];
    const { quiet, woken } = await twins(ctx, [{ text: 'hi' }], ['go']);
    for (const agent of [quiet, woken]) {
      const header = agent.session.events.find((event) => event.type === 'request/header') as
        SessionEvent<'request/header'> | undefined;
      headers.push(header!.data.header.tools.map((schema) => schema.name));
    }
    expect(ctx.modes.get(quiet).current).toBe('plan');
    expect(headers[1]).not.toContain('write');
    expect(headers[0]).not.toContain('write');
    expect(headers[0]).toContain('read');
  });

  it('a section rendered before the mode section that appends a mode/set cannot drop the plan section', async () => {
    const { ctx } = await setup();
    ctx.systemPrompt.section(flippingSection('red:early', 0));
    const { quiet, woken } = await twins(ctx, [{ text: 'hi' }], ['go']);
    expect(firstHeader(woken).system).toContain('You are in plan mode');
    expect(firstHeader(quiet).system).toContain('You are in plan mode');
  });

  it('a section rendered after the mode section that appends a mode/set cannot keep the plan view from applying', async () => {
    const { ctx } = await setup();
    ctx.systemPrompt.section(flippingSection('red:late', 150));
    const { quiet, woken } = await twins(ctx, [{ text: 'hi' }], ['go']);
    const tools = (agent: Agent) => firstHeader(agent).tools.map((schema) => schema.name);
    expect(ctx.modes.get(quiet).current).toBe('plan');
    expect(tools(woken)).not.toContain('write');
    expect(tools(quiet)).not.toContain('write');
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
        // The synchronous part of append() pushes the event (and wakes the session) before it returns.
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

describe('red team: quiet sessions, flips and seeds (held)', () => {
  it('modes.set() from a session/event listener at turn/start lands at that turn/start, as for a woken twin', async () => {
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
    const { quiet, woken } = await twins(ctx, script, ['go'], {}, (agent) => {
      target = agent;
    });
    expect(outcomes(quiet.session.events)).toEqual(['write: error']);
    expect(outcomes(quiet.session.events)).toEqual(outcomes(woken.session.events));
  });

  it('modes.set() from inside a tool mid-batch: the rest of the batch and the next step match a woken twin', async () => {
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
    const { quiet, woken } = await twins(ctx, script, ['go']);
    expect(outcomes(quiet.session.events)).toEqual(['flip: ok', 'write: ok', 'write: error']);
    expect(outcomes(quiet.session.events)).toEqual(outcomes(woken.session.events));
  });

  it('a seeded mode on a quiet in-memory session wakes it and is enforced from the first step', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], { mode: 'plan' });
    expect(isQuiet(agent.session)).toBe(false);
    await agent.prompt('go');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('a planted intent beside a brand-new file-backed session is restored (woken, plan enforced); a stale one is dropped', async () => {
    const { ctx } = await setup();
    const dir = ctx.sessions.dir;
    const plant = (id: string, body: string) => {
      ctx.sessions.create({ id: `${id}-probe` }).close();
      writeFileSync(join(dir, `${id}.mode-intent.json`), body);
    };
    plant('fresh', JSON.stringify({ mode: 'plan', seq: 0 }));
    plant('stale', JSON.stringify({ mode: 'plan', seq: 7 }));
    plant('junk', '{"mode":');
    const run = async (id: string) => {
      const session = ctx.sessions.create({ id });
      const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, session);
      const quietAtStart = isQuiet(session);
      await agent.prompt('go');
      session.close();
      return { quietAtStart, outcomes: outcomes(session.events), mode: ctx.modes.get(agent).current };
    };
    expect(await run('fresh')).toEqual({ quietAtStart: false, outcomes: ['write: error'], mode: 'plan' });
    expect(await run('stale')).toEqual({ quietAtStart: true, outcomes: ['write: ok'], mode: 'default' });
    const junk = await run('junk');
    expect(junk.quietAtStart).toBe(false);
    expect(junk.outcomes).toEqual(['write: error']);
  });

  it('a flip recorded beside a quiet file-backed session survives a restart (resume) and is enforced', async () => {
    const { ctx, workspace } = await setup();
    const session = ctx.sessions.create();
    const { agent } = agentOf(ctx, [{ text: 'hi' }], {}, session);
    await agent.prompt('one');
    expect(isQuiet(session)).toBe(true);
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

  it('a fork of a quiet session is not quiet; a fork of a plan session stays in plan', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }], { mode: 'plan' });
    await agent.prompt('one');
    const { agent: plain } = agentOf(ctx, [{ text: 'hi' }]);
    await plain.prompt('one');
    expect(isQuiet(ctx.sessions.fork(plain.session, undefined, { inMemory: true }))).toBe(false);
    const fork = ctx.sessions.fork(agent.session, undefined, { inMemory: true });
    const { agent: forked } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }], {}, fork);
    await forked.prompt('two');
    expect(outcomes(fork.events)).toEqual(['write: error']);
  });

  it('in-memory sessions reusing one id are separate: a flip of one leaves the other quiet and default', async () => {
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
    expect(isQuiet(b)).toBe(true);
    ctx.sessions.create({ id: 'file-same' }).close();
    expect(() => ctx.sessions.create({ id: 'file-same' })).toThrow(/already exists/);
  });
});

describe('red team: quiet sessions, the gate and the exit (held)', () => {
  it('judge() called directly for a quiet session: the exit and an unregistered name are judged, the rest allowed', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }]);
    await agent.prompt('one');
    expect(isQuiet(agent.session)).toBe(true);
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
    expect(isQuiet(agent.session)).toBe(true);
  });

  it('a quiet session’s exit call with an approver that says yes is still denied and lands nothing', async () => {
    const { ctx } = await setup();
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const script = [
      { text: 'exit', tool_calls: [{ name: EXIT_PLAN_MODE, arguments: { plan: '# p' } }] },
      { text: 'done' },
    ];
    const { quiet, woken } = await twins(ctx, script, ['go']);
    expect(asked).toEqual([]);
    expect(outcomes(quiet.session.events)).toEqual([`${EXIT_PLAN_MODE}: error`]);
    expect(resultOf(quiet.session.events, EXIT_PLAN_MODE)).toEqual(
      resultOf(woken.session.events, EXIT_PLAN_MODE),
    );
    expect(isQuiet(quiet.session)).toBe(true);
  });

  it('an assemble listener that puts the exit back cannot show it to a quiet session; the header matches a deployment without the engine', async () => {
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
    const quietAgent = agentOf(withEngine.ctx, [{ text: 'hi' }]).agent;
    // Without the listener's addition, the default-mode header is the engine-less one, byte for byte.
    stop();
    const a = await withEngine.ctx.systemPrompt.assemble({ agent: quietAgent });
    const b = await without.ctx.systemPrompt.assemble({ agent: plainHost });
    expect(JSON.stringify(a.header)).toBe(JSON.stringify(b.header));
  });

  it('a tool registered mid-turn and a tools/pre-execute listener that appends a mode/set judge as a woken twin does', async () => {
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
    const run = async (wake: boolean) => {
      const { agent } = agentOf(ctx, structuredClone(script));
      if (wake) agent.session.wake!();
      await agent.prompt('go');
      return outcomes(agent.session.events);
    };
    const quietRun = await run(false);
    // The twin's `register` fails: `late` is registered already. Only the calls after it are compared.
    const wokenRun = await run(true);
    expect(quietRun).toEqual(['register: ok', 'late: ok', 'write: error']);
    expect(wokenRun.slice(1)).toEqual(quietRun.slice(1));
  });
});

describe('red team: quiet sessions, reloads, two engines, malformed options (held)', () => {
  it('the engine reloaded while a session is quiet: a flip after the reload wakes it and is enforced', async () => {
    const { ctx, fiber } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'hi' }, { text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    await agent.prompt('one');
    await fiber!.dispose();
    await ctx.plugin(ModePlugin, {});
    expect(isQuiet(agent.session)).toBe(true);
    ctx.modes.set(agent, 'plan');
    expect(isQuiet(agent.session)).toBe(false);
    await agent.prompt('two');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });

  it('a session/event listener that throws, a `when` that throws and a foreign session whose file getter throws crash nothing', async () => {
    const { ctx, warnings } = await setup();
    ctx.on('agent/created', () => {}, {
      when: () => {
        throw new Error('odd predicate');
      },
    });
    expect(() => ctx.on('agent/created', () => {}, { when: 'yes' as never })).toThrow(TypeError);
    expect(() => ctx.tools.guard(() => ({ kind: 'allow' }), { skipWhenQuiet: 1 as never })).toThrow(
      /must be a boolean/,
    );
    expect(() => ctx.tools.guard(() => ({ kind: 'allow' }), null as never)).not.toThrow();
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
    expect(warnings.join('\n')).toMatch(/odd predicate/);
    expect(outcomes(host.events)).toEqual(['write: ok']);
  });

  it('a second engine instance does not load beside the first; the first still wakes and enforces', async () => {
    const { ctx } = await setup();
    const child = ctx.isolate('modes');
    await expect(child.plugin(ModePlugin, {})).rejects.toThrow(/already registered/);
    const { agent } = agentOf(ctx, [{ text: 'w', tool_calls: [WRITE] }, { text: 'done' }]);
    expect(isQuiet(agent.session)).toBe(true);
    ctx.modes.set(agent, 'plan');
    expect(isQuiet(agent.session)).toBe(false);
    await agent.prompt('go');
    expect(outcomes(agent.session.events)).toEqual(['write: error']);
  });
});
