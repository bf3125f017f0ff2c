/**
 * Regression tests for the bugs the reliability suite found (each named in docs/reliability.md): the smallest
 * reproduction of each, so a regression fails here with a readable name before any fuzzer has to rediscover it.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicyText } from '../../src/compile/api.js';
import { DEFAULT_MODE, foldMode, MALFORMED_MODE, ModeFoldCache, PLAN_MODE } from '../../src/engine/index.js';
import { grepTool, type SessionEvent, type Tool } from '../../src/host/index.js';
import { agentOf, eventsOf, setup } from '../engine/setup.js';

const at = (seq: number, type: string, data: unknown): SessionEvent =>
  ({ seq, type, data, time: '2026-11-30T00:00:00.000Z' }) as SessionEvent;

describe('regressions found by the reliability suite', () => {
  it('a class glob matches the tool names `.` and `..`, so `[!a]*: deny` is not bypassed by them', () => {
    const { documents } = loadPolicyText(
      'mode: m\ntools:\n  "[!a]*": deny\n  "[_.]": ask\ndefault: allow\n',
      'dots.yaml',
    );
    const policy = compilePolicies(documents).get('m')!;
    expect(policy.decide('.').decision).toBe('deny');
    expect(policy.decide('..').decision).toBe('deny');
    expect(policy.decide('..').rule.selector).toBe('[!a]*');
    expect(policy.decide('a.').decision).toBe('allow');
  });

  it('a malformed mode/set ({mode: 42}, {}, null, a string) folds to an undefined mode, never to default', () => {
    for (const data of [{ mode: 42 }, {}, null, 'plan', [], { mode: null }, { mode: { name: 'plan' } }]) {
      const events = [at(1, 'turn/start', { turn: 1 }), at(2, 'mode/set', data)];
      expect(foldMode(events), JSON.stringify(data)).toBe(MALFORMED_MODE);
      expect(new ModeFoldCache().mode({ events }), JSON.stringify(data)).toBe(MALFORMED_MODE);
    }
    // A valid flip after the damage lands as usual.
    const healed = [at(1, 'mode/set', { mode: 7 }), at(2, 'mode/set', { mode: DEFAULT_MODE })];
    expect(foldMode(healed)).toBe(DEFAULT_MODE);
  });

  it('a session whose log holds a malformed mode/set fails closed: the gate denies and get() says undefined', async () => {
    const { ctx } = await setup();
    let ran = 0;
    const probe: Tool = {
      name: 'probe',
      description: 'probe',
      parameters: { type: 'object' },
      execute: () => ((ran += 1), { content: 'ran' }),
    };
    ctx.tools.register(probe);
    const { agent } = agentOf(ctx, [{ tool_calls: [{ name: 'probe' }] }, { text: 'done' }]);
    // A foreign plugin (or a hand-edited log) writes garbage right after the turn opens.
    ctx.on('session/event', async (session, event, next) => {
      await next();
      if (event.type === 'turn/start') await session.append('mode/set', { mode: 42 } as never);
    });
    await agent.prompt('go');
    expect(ran).toBe(0);
    const result = eventsOf(agent.session.events, 'tool/result')[0]!.data;
    expect(result.isError).toBe(true);
    expect(result.content).toContain('ask the user to switch mode');
    expect(ctx.modes.get(agent)).toEqual({ current: MALFORMED_MODE, defined: false });
    // The user can still leave it: a flip to plan is valid and lands.
    ctx.modes.set(agent, PLAN_MODE);
    expect(ctx.modes.get(agent).pending).toBe(PLAN_MODE);
  });

  it('a 10 MB path is refused in a short error, not echoed back whole (realpath quoted it)', async () => {
    const { ctx } = await setup();
    const path = 'x'.repeat(10 * 1024 * 1024);
    const result = await ctx.tools.execute({ callId: 'c1', name: 'read', arguments: { path } });
    expect(result.isError).toBe(true);
    expect(result.content.length).toBeLessThan(200);
    expect(result.content).toContain('longer than the limit of 4096');
  });

  it('a 10 MB grep pattern is refused in a short error, not echoed back whole (V8 quoted it)', async () => {
    const { workspace } = await setup();
    const run = () =>
      grepTool.execute(
        { pattern: 'x'.repeat(10 * 1024 * 1024) },
        {
          callId: 'c1',
          signal: new AbortController().signal,
          workspace,
        },
      );
    const result = await run();
    expect(result.isError).toBe(true);
    expect(result.content.length).toBeLessThan(200);
  });

  it('an unknown tool with a 10 MB name is quoted at most 200 characters long', async () => {
    const { ctx } = await setup();
    const result = await ctx.tools.execute({
      callId: 'c1',
      name: 'y'.repeat(10 * 1024 * 1024),
      arguments: {},
    });
    expect(result.isError).toBe(true);
    expect(result.content.length).toBeLessThan(2_000);
    expect(result.content).toMatch(/^Error: unknown tool `y{200}…`; available tools: /);
  });

  it('policy text that starts with a blank line and a bad indent gets its error, and loading ends', () => {
    // Hung for good before the fix: a synchronous loop, so only the run's own timeout would have ended it.
    const result = loadPolicyText('\n|0x1F---\n\uFEFF[!custom .infmode\u00e9', 'garbage.yaml');
    expect(result.documents).toEqual([]);
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });
});
