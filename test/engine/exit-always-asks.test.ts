/**
 * The exit always asks: a mode whose decision for `exit_plan_mode` is `allow` (explicitly, through `default: allow`,
 * or through a glob such as `"exit_*": allow`) must not let the model leave the mode without a human approval and
 * then run the tools that mode denies; the gate asks for the exit, so a mode's denials hold until a human
 * approves. Real cordis Context, host, loop, scripted model, built-in tools.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_PLAN_MODE } from '../../src/engine/index.js';
import { agentOf, answerApprovals, eventsOf, resultOf, setup } from '../engine/setup.js';

const exitCall = { name: EXIT_PLAN_MODE, arguments: { plan: '# Plan\n\nwrite it' } };
const writeCall = { name: 'write', arguments: { path: 'a.txt', content: 'changed' } };

describe('the exit always needs a human approval', () => {
  for (const [label, body] of [
    ['default: allow', { tools: { write: 'deny', bash: 'deny' }, default: 'allow' }],
    ['an explicit allow', { tools: { write: 'deny', exit_plan_mode: 'allow' }, default: 'deny' }],
    ['a glob allow', { tools: { write: 'deny', 'exit_*': 'allow' }, default: 'deny' }],
  ] as const) {
    it(`a mode that allows exit_plan_mode by ${label} still asks; with no answerer the mode stays and write stays denied`, async () => {
      const { ctx, workspace } = await setup({ config: { modes: { guarded: body } } });
      const { agent } = agentOf(
        ctx,
        [
          { text: 'Leaving.', tool_calls: [exitCall] },
          { text: 'Writing.', tool_calls: [writeCall] },
          { text: 'Done.' },
        ],
        { mode: 'guarded' },
      );
      await agent.prompt('go');
      const events = agent.session.events;
      expect(eventsOf(events, 'approval/asked').map((e) => e.data.toolName)).toEqual([EXIT_PLAN_MODE]);
      expect(resultOf(events, EXIT_PLAN_MODE)?.isError).toBe(true);
      expect(ctx.modes.get(agent)).toEqual({ current: 'guarded', defined: true });
      expect(resultOf(events, 'write')?.isError).toBe(true);
      expect(existsSync(join(workspace, 'a.txt'))).toBe(false);
    });
  }

  it('approved, such a mode returns to default as plan does, with the approval wording', async () => {
    const { ctx } = await setup({
      config: { modes: { guarded: { tools: { write: 'deny' }, default: 'allow' } } },
    });
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const { agent } = agentOf(ctx, [{ text: 'Leaving.', tool_calls: [exitCall] }, { text: 'Ok.' }], {
      mode: 'guarded',
    });
    await agent.prompt('go');
    expect(asked.map((r) => r.toolName)).toEqual([EXIT_PLAN_MODE]);
    expect(resultOf(agent.session.events, EXIT_PLAN_MODE)?.content).toMatch(/^The user approved the plan\./);
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
  });
});
