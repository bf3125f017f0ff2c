/**
 * The RFC's acceptance criteria that concern the engine, each named by a test, as integration scenarios on the
 * real loop: real cordis Context, the real host (JSONL sessions on disk, tool runtime, approval seam, built-in
 * tools on a temporary workspace), the scripted model, and a real `approval/request` answerer. The plan-mode
 * scenario is the RFC's: set plan → explore and try to write (denied, pinned) → `exit_plan_mode` → approve → write.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayHeaders, type ApprovalOutcome, type ScriptEntry } from '../../src/host/index.js';
import { EXIT_PLAN_MODE } from '../../src/engine/index.js';
import { eventsOf, resultOf, setup, types } from './setup.js';
import { scriptedModel } from '../../src/host/index.js';

const PLAN = '# Greet the world\n\nWrite `hello.txt` with a greeting.';
const SCENARIO: ScriptEntry[] = [
  { text: 'Exploring.', tool_calls: [{ name: 'list', arguments: {} }] },
  {
    text: 'Trying to write.',
    tool_calls: [{ name: 'write', arguments: { path: 'hello.txt', content: 'hello' } }],
  },
  { text: 'Here is my plan.', tool_calls: [{ name: EXIT_PLAN_MODE, arguments: { plan: PLAN } }] },
  {
    text: 'Approved; writing.',
    tool_calls: [{ name: 'write', arguments: { path: 'hello.txt', content: 'hello' } }],
  },
  { text: 'Done.' },
];

async function planScenario(outcome: ApprovalOutcome) {
  const { ctx, workspace } = await setup();
  ctx.on('approval/request', async () => outcome);
  const session = ctx.sessions.create();
  const model = scriptedModel(SCENARIO);
  const agent = ctx.agents.create({ session, model });
  ctx.modes.set(agent, 'plan');
  await agent.prompt('Add a greeting file.');
  return { ctx, workspace, session, agent, model };
}

describe('RFC acceptance: the plan-mode scenario end to end', () => {
  it('the active mode is a pure function of the log, and each mode/set is followed at the next step by a matching request/header-delta; every request is rebuilt from the log', async () => {
    const { session, model } = await planScenario({ outcome: 'allowed-once' });
    const events = session.events;
    const list = types(events);
    expect(list.slice(0, 2)).toEqual(['turn/start', 'mode/set']);
    const exitSet = list.lastIndexOf('mode/set');
    expect(list.slice(exitSet - 1, exitSet + 3)).toEqual([
      'step/end',
      'mode/set',
      'step/start',
      'request/header-delta',
    ]);
    expect(JSON.stringify(replayHeaders(events))).toBe(
      JSON.stringify(model.requests.map((request) => request.header)),
    );
    session.close();
  });

  it('in plan mode the filtered schemas and the section reach both the wire request and the logged header; a registered but filtered write is denied at pre-execute, naming the mode', async () => {
    const { session, model, workspace } = await planScenario({ outcome: 'allowed-once' });
    const header = eventsOf(session.events, 'request/header')[0]!.data.header;
    expect(model.requests[0]!.header).toEqual(header);
    expect(header.tools.map((tool) => tool.name)).toEqual([
      'read',
      'list',
      'grep',
      'bash',
      'todo_write',
      EXIT_PLAN_MODE,
    ]);
    expect(header.system).toContain('# Plan mode');
    expect(resultOf(session.events, 'write', 0)?.content).toBe(
      'Error: tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready',
    );
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('hello');
    session.close();
  });

  it('the approval path flips the mode and restores the full toolset at the next step', async () => {
    const { session, ctx, agent, model } = await planScenario({ outcome: 'allowed-once' });
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
    const delta = eventsOf(session.events, 'request/header-delta').at(-1)!.data;
    expect(delta.added?.map((tool) => tool.name)).toEqual(['write', 'edit']);
    expect(delta.removed).toEqual([EXIT_PLAN_MODE]);
    expect(model.requests[3]!.header.tools.map((tool) => tool.name)).toContain('write');
    expect(resultOf(session.events, 'write', 1)?.isError).toBe(false);
    // The tool-driven exit is narrated by its own result only.
    expect(eventsOf(session.events, 'context/message')).toEqual([]);
    session.close();
  });

  it('the rejection path returns a corrective error, stays in plan mode, and logs one header', async () => {
    const { session, ctx, agent, workspace } = await planScenario({
      outcome: 'rejected',
      feedback: 'Say hi instead.',
    });
    expect(resultOf(session.events, EXIT_PLAN_MODE)).toMatchObject({
      content: 'Error: the user rejected the plan: Say hi instead.; keep planning and revise it',
      isError: true,
    });
    expect(ctx.modes.get(agent)).toEqual({ current: 'plan', defined: true });
    expect(eventsOf(session.events, 'request/header')).toHaveLength(1);
    expect(eventsOf(session.events, 'request/header-delta')).toHaveLength(0);
    expect(resultOf(session.events, 'write', 1)?.isError).toBe(true);
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
    session.close();
  });
});
