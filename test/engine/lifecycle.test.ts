/**
 * Invariants 8 and 10: seeding from `AgentOptions.mode`, and disposal. Real: cordis Context and fibers, the host's
 * sessions (JSONL on disk for resume), agents, loop, tool runtime and approval seam with a real answerer.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalOutcome } from '../../src/host/index.js';
import { EXIT_PLAN_MODE, MODE_SECTION } from '../../src/engine/index.js';
import { agentOf, eventsOf, resultOf, setup, types } from './setup.js';

describe('invariant 8: AgentOptions.mode seeds a pending intent that lands at the first turn/start', () => {
  it('seeds at agent/created: pending until the first turn, then the first header is mode-shaped', async () => {
    const { ctx } = await setup();
    const { agent, model } = agentOf(ctx, [{ text: 'ok' }], { mode: 'plan' });
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', pending: 'plan', defined: true });
    expect(agent.session.events).toHaveLength(0);
    await agent.prompt('go');
    expect(types(agent.session.events).slice(0, 2)).toEqual(['turn/start', 'mode/set']);
    expect(model.requests[0]!.header.tools.map((tool) => tool.name)).not.toContain('write');
    expect(eventsOf(agent.session.events, 'context/message')).toEqual([]);
  });

  it('an explicit option wins over the logged mode on resume; without it the log decides', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create();
    await agentOf(ctx, [{ text: 'planning' }], { mode: 'plan' }, session).agent.prompt('plan');
    session.close();

    const logDecides = await ctx.sessions.resume(session.id);
    const quiet = agentOf(ctx, [{ text: 'still planning' }], {}, logDecides);
    expect(ctx.modes.get(quiet.agent)).toEqual({ current: 'plan', defined: true });
    await quiet.agent.prompt('go on');
    expect(eventsOf(logDecides.events, 'mode/set')).toHaveLength(1);
    logDecides.close();

    const explicit = await ctx.sessions.resume(session.id);
    const loud = agentOf(ctx, [{ text: 'building' }], { mode: 'default' }, explicit);
    expect(ctx.modes.get(loud.agent)).toEqual({ current: 'plan', pending: 'default', defined: true });
    await loud.agent.prompt('build');
    expect(ctx.modes.get(loud.agent)).toEqual({ current: 'default', defined: true });
    expect(loud.model.requests[0]!.header.tools.map((tool) => tool.name)).toContain('write');
    // The model saw plan in the log's last header, so the user's choice is narrated.
    const tail = explicit.events.slice(explicit.events.findLastIndex((e) => e.type === 'turn/start'));
    expect(types(tail).slice(0, 3)).toEqual(['turn/start', 'mode/set', 'context/message']);
    explicit.close();
  });

  it('an option equal to the logged mode seeds nothing', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ inMemory: true });
    await agentOf(ctx, [{ text: 'a' }], { mode: 'plan' }, session).agent.prompt('one');
    const again = agentOf(ctx, [{ text: 'b' }], { mode: 'plan' }, session);
    expect(ctx.modes.get(again.agent)).toEqual({ current: 'plan', defined: true });
    await again.agent.prompt('two');
    expect(eventsOf(session.events, 'mode/set')).toHaveLength(1);
  });
});

describe('invariant 10: disposing the plugin removes everything it added', () => {
  it('removes every listener, the gate, the section, the tool and the service', async () => {
    const { ctx, fiber } = await setup();
    // The listeners the plugin registered, as its fiber's effects (cordis's public record of what disposal undoes).
    const ours = () =>
      fiber!
        .getEffects()
        .map((effect) => effect.label)
        .filter((label) => label.startsWith('ctx.on(') || label === 'systemPrompt.view()');
    // The host registers a contained session/event listener under its own symbol (src/host/contain.ts).
    expect(ours()).toEqual([
      'systemPrompt.view()',
      'ctx.on(Symbol(session/event))',
      'ctx.on("agent/created")',
    ]);
    expect(ctx.get('modes')).toBeDefined();
    expect(ctx.systemPrompt.names()).toContain(MODE_SECTION);
    expect(ctx.tools.get(EXIT_PLAN_MODE)).toBeDefined();
    expect((await ctx.systemPrompt.assemble({})).header.tools.map((tool) => tool.name)).not.toContain(
      EXIT_PLAN_MODE,
    );
    const session = ctx.sessions.create({ inMemory: true });
    const planned = agentOf(ctx, [{ text: 'a' }], { mode: 'plan' }, session).agent;
    await planned.prompt('one');

    const write = { callId: 'w', name: 'write', arguments: {}, agent: planned };
    expect((await ctx.tools.judge(write)).kind).toBe('deny');

    await fiber!.dispose();
    expect(ours()).toEqual([]);
    expect(await ctx.tools.judge(write)).toEqual({ kind: 'allow' });
    expect(ctx.get('modes')).toBeUndefined();
    expect(ctx.systemPrompt.names()).not.toContain(MODE_SECTION);
    expect(ctx.tools.get(EXIT_PLAN_MODE)).toBeUndefined();
    // Modes are lost gracefully: the session still says plan, but nothing enforces or shows it any more.
    const after = agentOf(ctx, [{ text: 'b' }], { mode: 'plan' }, session);
    const { header } = await ctx.systemPrompt.assemble({ agent: after.agent });
    expect(header.tools.map((tool) => tool.name)).toContain('write');
    expect(header.system).toBe('');
  });

  it('an exit awaiting approval when the plugin is disposed fails, and no mode/set is recorded', async () => {
    const { ctx, fiber } = await setup();
    let answer!: (outcome: ApprovalOutcome) => void;
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    ctx.on('approval/request', () => {
      asked();
      return new Promise<ApprovalOutcome>((resolve) => (answer = resolve));
    });
    const { agent } = agentOf(
      ctx,
      [
        { text: 'Plan.', tool_calls: [{ name: EXIT_PLAN_MODE, arguments: { plan: '# P\n\ndo it' } }] },
        { text: 'Ok.' },
      ],
      { mode: 'plan' },
    );
    const turn = agent.prompt('go');
    await question;
    await fiber!.dispose();
    answer({ outcome: 'allowed-once' });
    await turn;
    expect(resultOf(agent.session.events, EXIT_PLAN_MODE)).toMatchObject({
      content:
        'Error: the mode engine was unloaded while the plan awaited approval; the session did not leave its mode',
      isError: true,
    });
    expect(eventsOf(agent.session.events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
  });
});
