/**
 * Invariant 7: `exit_plan_mode`. Real: cordis Context, the host's tool runtime, approval seam (answered by real
 * `approval/request` listeners), agents, loop and scripted model, built-in tools on a temporary workspace.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ScriptEntry, Tool } from '../../src/host/index.js';
import { EXIT_PLAN_MODE, planTitle, type ExitPlanModeArgs } from '../../src/engine/index.js';
import { agentOf, answerApprovals, eventsOf, resultOf, setup, types } from './setup.js';

const PLAN = '# Add a greeting\n\n1. Write `hello.txt`.\n2. Report back.';
const exitCall = { name: EXIT_PLAN_MODE, arguments: { plan: PLAN } };
const writeCall = { name: 'write', arguments: { path: 'hello.txt', content: 'hi' } };
const APPROVED =
  'The user approved the plan. The session leaves plan mode at the end of this step and the full toolset returns on the next step; until then the rest of this step is still judged under plan mode. Carry out the plan.';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

async function planSession(outcome: ApprovalOutcome | null, script: ScriptEntry[]) {
  const setupResult = await setup();
  const asked = outcome ? answerApprovals(setupResult.ctx, outcome) : [];
  const { agent, model } = agentOf(setupResult.ctx, script, { mode: 'plan' });
  await agent.prompt('plan and do it');
  return { ...setupResult, agent, model, asked };
}

describe('invariant 7: exit_plan_mode asks, and only an approved plan returns to default at the step boundary', () => {
  it('approved exit followed by write in the same batch: the write is still denied, and allowed after the boundary', async () => {
    const { agent, model, workspace, asked } = await planSession({ outcome: 'allowed-once' }, [
      { text: 'Here is the plan.', tool_calls: [exitCall, writeCall] },
      { text: 'Writing now.', tool_calls: [writeCall] },
      { text: 'Done.' },
    ]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ toolName: EXIT_PLAN_MODE, arguments: { plan: PLAN } });
    const events = agent.session.events;
    expect(resultOf(events, EXIT_PLAN_MODE)).toMatchObject({ content: APPROVED, isError: false });
    expect(resultOf(events, 'write', 0)).toMatchObject({
      content:
        'Error: tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready',
      isError: true,
    });
    expect(resultOf(events, 'write', 1)).toMatchObject({ isError: false });
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('hi');
    // The switch lands right after the step's step/end, after the approval events, and is not narrated.
    const list = types(events);
    const at = list.lastIndexOf('mode/set');
    expect(list.slice(at - 1, at + 3)).toEqual([
      'step/end',
      'mode/set',
      'step/start',
      'request/header-delta',
    ]);
    expect(list.indexOf('approval/asked')).toBeLessThan(list.indexOf('approval/decided'));
    expect(list.indexOf('approval/decided')).toBeLessThan(at);
    expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan', 'default']);
    expect(eventsOf(events, 'context/message')).toEqual([]);
    // The delta restores the full toolset and drops the section.
    const delta = eventsOf(events, 'request/header-delta')[0]!.data;
    expect(delta.added?.map((tool) => tool.name)).toEqual(['write', 'edit']);
    expect(delta.removed).toEqual([EXIT_PLAN_MODE]);
    expect(delta.system).toBe('');
    expect(model.requests[1]!.header.tools.map((tool) => tool.name)).toEqual([
      'read',
      'list',
      'grep',
      'write',
      'edit',
      'bash',
      'todo_write',
    ]);
  });

  it('rejected with feedback: a corrective error carrying the feedback verbatim; the mode stays and one header is logged', async () => {
    const { agent, workspace } = await planSession(
      { outcome: 'rejected', feedback: 'Also cover the README.' },
      [{ text: 'Plan.', tool_calls: [exitCall] }, { text: 'Revising.' }],
    );
    const events = agent.session.events;
    expect(resultOf(events, EXIT_PLAN_MODE)).toMatchObject({
      content: 'Error: the user rejected the plan: Also cover the README.; keep planning and revise it',
      isError: true,
    });
    expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    expect(eventsOf(events, 'request/header')).toHaveLength(1);
    expect(eventsOf(events, 'request/header-delta')).toHaveLength(0);
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
    expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
      callId: 'call_1_1_1',
      outcome: 'rejected',
      feedback: 'Also cover the README.',
      sha256: sha256(PLAN),
      edited: false,
    });
  });

  it('an approval that revises the plan runs with the edited plan, returns it whole and records its hash', async () => {
    const EDITED = '# Add a greeting\n\n1. Write `hello.txt` with "hello".\n2. Report back.';
    const { agent } = await planSession({ outcome: 'allowed-once', arguments: { plan: EDITED } }, [
      { text: 'Plan.', tool_calls: [exitCall] },
      { text: 'Doing it.' },
    ]);
    const events = agent.session.events;
    const result = resultOf(events, EXIT_PLAN_MODE)!;
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(
      /^The user edited the plan and approved the edited version; carry out this plan/,
    );
    expect(result.content.endsWith(`The approved plan:\n\n${EDITED}`)).toBe(true);
    expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
      callId: 'call_1_1_1',
      outcome: 'allowed-once',
      sha256: sha256(EDITED),
      edited: true,
      arguments: { plan: EDITED },
    });
    // The call as the model made it stays in the log unchanged: the revision is beside it, not over it.
    expect(eventsOf(events, 'tool/call')[0]!.data.arguments).toEqual({ plan: PLAN });
    expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan', 'default']);
  });

  it('an approval that revises the plan to one the schema refuses is unavailable: the session stays in plan', async () => {
    for (const revised of [
      { plan: '  \n' },
      { plan: 'x'.repeat(100_001) },
      { plan: 'ok', extra: 1 },
      'not an object',
    ]) {
      const { agent } = await planSession({ outcome: 'allowed-once', arguments: revised }, [
        { text: 'Plan.', tool_calls: [exitCall, writeCall] },
        { text: 'Stuck.' },
      ]);
      const events = agent.session.events;
      expect(resultOf(events, EXIT_PLAN_MODE)).toMatchObject({ isError: true });
      // The plan was approved, but the approver's edit of it cannot run: the model is told so, not that no one
      // could approve it.
      expect(resultOf(events, EXIT_PLAN_MODE)!.content).toMatch(
        /^Error: the approval of `exit_plan_mode` edited its arguments into ones that do not fit its parameters: .+, so the session stays in its planning mode; revise the plan and present it again$/,
      );
      expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
        callId: 'call_1_1_1',
        outcome: 'unavailable',
        sha256: sha256(PLAN),
        edited: false,
      });
      expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
      expect(resultOf(events, 'write')).toMatchObject({ isError: true });
    }
  });

  it('a rejection that revises the plan keeps the edit: the error carries it, the log its hash; nothing runs', async () => {
    const EDITED = '# Add a greeting\n\n1. Write `hello.txt` with "hello".\n2. Report back.';
    const { agent, workspace } = await planSession(
      { outcome: 'rejected', feedback: 'Not yet.', arguments: { plan: EDITED } },
      [{ text: 'Plan.', tool_calls: [exitCall, writeCall] }, { text: 'Revising.' }],
    );
    const events = agent.session.events;
    expect(resultOf(events, EXIT_PLAN_MODE)).toEqual({
      callId: 'call_1_1_1',
      name: EXIT_PLAN_MODE,
      content:
        "Error: the user edited the plan, then rejected it: Not yet.; keep planning and revise their version below, not your draft. The user's version:\n\n" +
        EDITED,
      isError: true,
      data: expect.any(Object),
    });
    expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
      callId: 'call_1_1_1',
      outcome: 'rejected',
      feedback: 'Not yet.',
      sha256: sha256(EDITED),
      edited: true,
      arguments: { plan: EDITED },
    });
    expect(eventsOf(events, 'tool/call')[0]!.data.arguments).toEqual({ plan: PLAN });
    // Still planning: the rejection's revision never lets anything run.
    expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    expect(resultOf(events, 'write')).toMatchObject({ isError: true });
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
  });

  it('a rejection whose revision the schema refuses, or that changes nothing, is a plain rejection', async () => {
    for (const revised of [{ plan: '  \n' }, { plan: 'ok', extra: 1 }, 'not an object', { plan: PLAN }]) {
      const { agent } = await planSession({ outcome: 'rejected', arguments: revised }, [
        { text: 'Plan.', tool_calls: [exitCall] },
        { text: 'Revising.' },
      ]);
      const events = agent.session.events;
      expect(resultOf(events, EXIT_PLAN_MODE)!.content).toBe(
        'Error: the user rejected the plan; keep planning, ask the user what to change, and revise it',
      );
      expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
        callId: 'call_1_1_1',
        outcome: 'rejected',
        sha256: sha256(PLAN),
        edited: false,
      });
      expect(eventsOf(events, 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    }
  });

  it('an approval that returns the plan unchanged is not an edit', async () => {
    const { agent } = await planSession({ outcome: 'allowed-once', arguments: { plan: PLAN } }, [
      { text: 'Plan.', tool_calls: [exitCall] },
      { text: 'Doing it.' },
    ]);
    const events = agent.session.events;
    expect(resultOf(events, EXIT_PLAN_MODE)).toMatchObject({ content: APPROVED, isError: false });
    expect(eventsOf(events, 'approval/decided')[0]!.data).toEqual({
      callId: 'call_1_1_1',
      outcome: 'allowed-once',
      sha256: sha256(PLAN),
      edited: false,
    });
  });

  it('rejected without feedback, cancelled, and unavailable (no answerer) never exit, with corrective wording', async () => {
    const cases: [ApprovalOutcome | null, string][] = [
      [
        { outcome: 'rejected' },
        'Error: the user rejected the plan; keep planning, ask the user what to change, and revise it',
      ],
      [
        { outcome: 'cancelled' },
        'Error: the approval of the plan was cancelled, so the session stays in its planning mode; ask the user to switch mode when they want you to proceed',
      ],
      [
        null,
        'Error: no one can approve the plan here, so the session stays in its planning mode; ask the user to switch mode to proceed',
      ],
    ];
    for (const [outcome, text] of cases) {
      const { agent, ctx } = await planSession(outcome, [
        { text: 'Plan.', tool_calls: [exitCall] },
        { text: 'Ok.' },
      ]);
      expect(resultOf(agent.session.events, EXIT_PLAN_MODE)).toMatchObject({ content: text, isError: true });
      expect(ctx.modes.get(agent)).toEqual({ current: 'plan', defined: true });
    }
  });

  it('is visible only where its decision is not deny: never in default, in plan, and in a custom mode that asks for it', async () => {
    const { ctx } = await setup({
      config: { modes: { sketch: { tools: { read: 'allow', exit_plan_mode: 'ask' }, default: 'deny' } } },
    });
    const names = async (mode: string) => {
      const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode });
      await agent.prompt('x');
      return (await ctx.systemPrompt.assemble({ agent })).header.tools.map((tool) => tool.name);
    };
    expect(await names('default')).not.toContain(EXIT_PLAN_MODE);
    expect(await names('plan')).toContain(EXIT_PLAN_MODE);
    expect(await names('sketch')).toEqual(['read', EXIT_PLAN_MODE]);
  });

  it('a custom mode that asks for exit_plan_mode returns to default the same way', async () => {
    const { ctx } = await setup({
      config: { modes: { sketch: { tools: { read: 'allow', exit_plan_mode: 'ask' }, default: 'deny' } } },
    });
    answerApprovals(ctx, { outcome: 'allowed-once' });
    const { agent } = agentOf(ctx, [{ text: 'Plan.', tool_calls: [exitCall] }, { text: 'Ok.' }], {
      mode: 'sketch',
    });
    await agent.prompt('go');
    expect(resultOf(agent.session.events, EXIT_PLAN_MODE)?.content).toBe(
      'The user approved the plan. The session leaves sketch mode at the end of this step and the full toolset returns on the next step; until then the rest of this step is still judged under sketch mode. Carry out the plan.',
    );
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
  });

  it('agent-less calls are errors, and the plan must be non-empty', async () => {
    const { ctx } = await setup();
    answerApprovals(ctx, { outcome: 'allowed-once' });
    expect(
      await ctx.tools.execute({ callId: 'c1', name: EXIT_PLAN_MODE, arguments: { plan: PLAN } }),
    ).toEqual({
      content: 'Error: exit_plan_mode needs an agent: there is no session whose mode it could end',
      isError: true,
    });
    const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode: 'plan' });
    await agent.prompt('x');
    for (const plan of ['', '   \n']) {
      const result = await ctx.tools.execute({
        callId: 'c2',
        name: EXIT_PLAN_MODE,
        arguments: { plan },
        agent,
      });
      expect(result.isError).toBe(true);
      expect(result.content).toContain('invalid arguments for `exit_plan_mode`');
    }
    const missing = await ctx.tools.execute({ callId: 'c3', name: EXIT_PLAN_MODE, arguments: {}, agent });
    expect(missing.content).toContain("must have required property 'plan'");
    expect(ctx.modes.get(agent)).toEqual({ current: 'plan', defined: true });
  });

  it('re-checks the landed mode when it runs (defence in depth): outside a mode that offers it, it does nothing', async () => {
    const { ctx } = await setup();
    const { agent } = agentOf(ctx, [{ text: 'ok' }]);
    await agent.prompt('x');
    const tool = ctx.tools.get(EXIT_PLAN_MODE) as Tool<ExitPlanModeArgs>;
    const result = await tool.execute(
      { plan: PLAN },
      { callId: 'c', agent, signal: new AbortController().signal, workspace: '.' },
    );
    expect(result).toEqual({
      content: 'Error: exit_plan_mode is not available in default mode',
      isError: true,
    });
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
  });

  it('is presented as a card titled by the plan’s first heading, or "Plan"', async () => {
    const { ctx } = await setup();
    const tool = ctx.tools.get(EXIT_PLAN_MODE) as Tool<ExitPlanModeArgs>;
    expect(tool.present!({ plan: PLAN })).toEqual({ title: 'Add a greeting', markdown: PLAN });
    expect(tool.present!({ plan: 'Steps:\n\n## Refactor the parser ##\n' }).title).toBe(
      'Refactor the parser',
    );
    expect(tool.present!({ plan: 'just do it' })).toEqual({ title: 'Plan', markdown: 'just do it' });
    expect(planTitle('#notaheading\n    # indented code')).toBe('Plan');
    expect(tool.parameters).toMatchObject({
      required: ['plan'],
      properties: { plan: { type: 'string', minLength: 1 } },
    });
  });
});
