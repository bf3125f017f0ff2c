/**
 * The engine's hooks skip quiet sessions (`Session` in src/host/types.ts): a session no `mode/set` was appended to
 * and no intent was parked in is in the default mode, so a default-mode step calls none of them. These tests try
 * to get a session out of the default mode while the host still counts it quiet, and check that the gate then
 * judges every call: a flip asked by the user, a seeded mode, a `mode/set` appended by another plugin mid-step,
 * one pushed into the events array behind the host's back, a hallucinated `exit_plan_mode`. Real: cordis, the
 * host, the engine with the built-in plan policy, the scripted model.
 */
import { describe, expect, it } from 'vitest';
import type { Session, SessionEvent, Tool } from '../../src/host/index.js';
import { EXIT_PLAN_MODE } from '../../src/engine/index.js';
import { agentOf, resultOf, setup } from './setup.js';

const quiet = (session: Session) => (session as Session & { quiet: boolean }).quiet;

/**
 * A default-mode session whose model calls `sneak` (a read-only tool that does `trick` to its session), then
 * `write` in the same batch; the session must have woken by the end.
 */
async function sneakThenWrite(trick: (session: Session) => unknown) {
  const { ctx } = await setup();
  ctx.tools.register({
    name: 'sneak',
    description: 'changes the mode of its session behind the engine',
    parameters: { type: 'object' },
    annotations: { readOnlyHint: true },
    async execute(_args, context) {
      await trick(context.agent!.session);
      return { content: 'done' };
    },
  } satisfies Tool);
  const { agent } = agentOf(ctx, [
    {
      text: 'both',
      tool_calls: [
        { name: 'sneak', arguments: {} },
        { name: 'write', arguments: { path: 'a.txt', content: 'x' } },
      ],
    },
    { text: 'done' },
  ]);
  await agent.prompt('go');
  expect(quiet(agent.session)).toBe(false);
  return { events: agent.session.events };
}

describe('quiet sessions and the mode engine', () => {
  it('a default-mode session stays quiet turn after turn; a hallucinated exit gets the gate’s own answer', async () => {
    const { ctx } = await setup();
    const script = [
      { text: 'exiting', tool_calls: [{ name: EXIT_PLAN_MODE, arguments: { plan: 'p' } }] },
      { text: 'ok' },
    ];
    const first = agentOf(ctx, script);
    await first.agent.prompt('go');
    expect(quiet(first.agent.session)).toBe(true);
    const second = agentOf(ctx, script);
    second.agent.session.wake!();
    await second.agent.prompt('go');
    const fromQuiet = resultOf(first.agent.session.events, EXIT_PLAN_MODE)!;
    expect(fromQuiet.isError).toBe(true);
    expect(fromQuiet.content).toMatch(/exit_plan_mode/);
    expect(fromQuiet).toEqual(resultOf(second.agent.session.events, EXIT_PLAN_MODE));
  });

  it('a user flip wakes the session, and plan mode lands and is enforced at the next turn', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [
      { text: 'writing', tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'x' } }] },
      { text: 'done' },
    ]);
    expect(quiet(agent.session)).toBe(true);
    ctx.modes.set(agent, 'plan');
    expect(quiet(agent.session)).toBe(false);
    await agent.prompt('go');
    expect(ctx.modes.get(agent).current).toBe('plan');
    expect(resultOf(agent.session.events, 'write')).toMatchObject({ isError: true });
  });

  it('a seeded mode wakes the session before its first turn', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(
      ctx,
      [
        { text: 'writing', tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'x' } }] },
        { text: 'done' },
      ],
      { mode: 'plan' },
    );
    expect(quiet(agent.session)).toBe(false);
    await agent.prompt('go');
    expect(resultOf(agent.session.events, 'write')).toMatchObject({ isError: true });
  });

  it('a mode/set another plugin appends mid-step wakes the session: the next call of the batch is judged in plan', async () => {
    const { events } = await sneakThenWrite(async (session) => {
      await session.append('mode/set', { mode: 'plan' });
    });
    expect(resultOf(events, 'sneak')).toMatchObject({ isError: false });
    expect(resultOf(events, 'write')).toMatchObject({ isError: true });
  });

  it('a mode/set pushed into the events array behind append() is still enforced', async () => {
    const { events } = await sneakThenWrite((session) => {
      const log = session.events as unknown[];
      log.push(Object.freeze({ seq: log.length + 1, type: 'mode/set', data: { mode: 'plan' }, time: '' }));
    });
    expect(resultOf(events, 'write')).toMatchObject({ isError: true });
  });

  it('a session of another implementation is never quiet: the gate judges its calls', async () => {
    const { ctx } = await setup();
    // Its own journal, already in plan mode, and empty of anything else: the host cannot vouch for it.
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
    const { agent } = agentOf(
      ctx,
      [
        { text: 'writing', tool_calls: [{ name: 'write', arguments: { path: 'a.txt', content: 'x' } }] },
        { text: 'done' },
      ],
      {},
      foreign,
    );
    await agent.prompt('go');
    expect(resultOf(events, 'write')).toMatchObject({ isError: true });
  });
});
