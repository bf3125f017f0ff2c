/**
 * Invariants 4 and 9: the hard layer. Real: cordis Context, the host's tool runtime (`ctx.tools.execute` runs the
 * `tools/pre-execute` waterfall under the gate's ceiling), approval seam, agents and loop with the scripted model.
 * Where a test needs a verdict for a name no one registered, it asks `ctx.tools.judge()`, as the runtime does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from 'cordis';
import type { Agent, PreExecuteResult, Tool } from '../../src/host/index.js';
import {
  alreadyApprovedReason,
  alreadyApprovedUserReason,
  DEFAULT_MODE_RULE,
  ModePlugin,
  EXIT_ALREADY_APPROVED_RULE,
  UNDEFINED_MODE_RULE,
} from '../../src/engine/index.js';
import { agentOf, answerApprovals, eventsOf, planRule, resultOf, setup } from './setup.js';

const PLAN_WRITE_DENIED =
  'tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready';
/** The same denial said to the user: what they can do, not what the model is told to do. */
const PLAN_WRITE_DENIED_FOR_USER = 'tool "write" is not available in plan mode until you approve a plan';

/** An agent whose session has landed `mode` (through the real loop). */
async function agentIn(ctx: Context, mode: string): Promise<Agent> {
  const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode });
  await agent.prompt('land');
  return agent;
}

/** The verdict the real tool runtime gives a call (the gate's ceiling and the pre-execute waterfall). */
function verdict(ctx: Context, name: string, agent?: Agent): Promise<PreExecuteResult> {
  return ctx.tools.judge({ callId: 'c1', name, arguments: {}, ...(agent ? { agent } : {}) });
}

const REVIEW = {
  modes: {
    review: {
      description: 'Read and comment; no changes, no MCP servers.',
      tools: {
        read: 'allow',
        'mcp__*': { decision: 'deny', reason: 'Review mode does not call MCP servers.' },
        write: 'ask',
      },
      default: 'deny',
    },
  },
} as const;

describe('invariant 4: the gate judges the landed mode only', () => {
  it('denies write in plan mode with the pinned reason, on the real loop', async () => {
    const { ctx, workspace } = await setup();
    const { agent } = agentOf(
      ctx,
      [
        { text: 'Writing.', tool_calls: [{ name: 'write', arguments: { path: 'x.txt', content: 'x' } }] },
        { text: 'Ok.' },
      ],
      { mode: 'plan' },
    );
    await agent.prompt('write x');
    expect(resultOf(agent.session.events, 'write')).toEqual({
      callId: 'call_1_1_1',
      name: 'write',
      content: `Error: ${PLAN_WRITE_DENIED}`,
      isError: true,
      data: {
        rule: planRule('default'),
        userReason: 'tool "write" is not available in plan mode until you approve a plan',
      },
    });
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${workspace}/x.txt`)).toBe(false);
  });

  it('judges a pending intent not at all: a flip parked mid-step does not change the verdicts of that step', async () => {
    const { ctx } = await setup();
    const agent = await agentIn(ctx, 'default');
    ctx.modes.set(agent, 'plan');
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', pending: 'plan', defined: true });
    expect(await verdict(ctx, 'write', agent)).toEqual({ kind: 'allow' });
    const planned = await agentIn(ctx, 'plan');
    ctx.modes.set(planned, 'default');
    expect(await verdict(ctx, 'write', planned)).toEqual({
      kind: 'deny',
      reason: PLAN_WRITE_DENIED,
      userReason: PLAN_WRITE_DENIED_FOR_USER,
      rule: planRule('default'),
    });
  });

  it('passes agent-less calls through (no session to fold)', async () => {
    const { ctx } = await setup();
    expect(await verdict(ctx, 'write')).toEqual({ kind: 'allow' });
    expect(await verdict(ctx, 'anything')).toEqual({ kind: 'allow' });
  });

  it('judges registered, hallucinated and foreign names alike, by the same table', async () => {
    const { ctx } = await setup();
    const agent = await agentIn(ctx, 'plan');
    expect(await verdict(ctx, 'read', agent)).toEqual({ kind: 'allow' });
    expect(await verdict(ctx, 'no_such_tool', agent)).toEqual({
      kind: 'deny',
      reason:
        'tool "no_such_tool" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready',
      userReason: 'tool "no_such_tool" is not available in plan mode until you approve a plan',
      rule: planRule('default'),
    });
    expect((await verdict(ctx, 'mcp__gh__create_issue', agent)).kind).toBe('deny');
    // A foreign tool registered later, declaring read-only, is allowed by plan's effects rule.
    ctx.tools.register({
      name: 'mcp__gh__list_issues',
      description: 'List issues.',
      parameters: { type: 'object' },
      annotations: { readOnlyHint: true },
      execute: () => ({ content: '[]' }),
    } satisfies Tool);
    expect(await verdict(ctx, 'mcp__gh__list_issues', agent)).toEqual({ kind: 'allow' });
  });

  it('allow passes to inner listeners, which still apply', async () => {
    const { ctx } = await setup();
    const agent = await agentIn(ctx, 'plan');
    ctx.on('tools/pre-execute', async (exec, next) =>
      exec.name === 'read' ? { kind: 'deny', reason: 'reads are off today' } : next(),
    );
    expect(await verdict(ctx, 'read', agent)).toEqual({ kind: 'deny', reason: 'reads are off today' });
  });

  it('ask goes to the approval seam (exit_plan_mode in plan), with the rule reason', async () => {
    const { ctx } = await setup();
    const agent = await agentIn(ctx, 'plan');
    expect(await verdict(ctx, 'exit_plan_mode', agent)).toEqual({
      kind: 'ask',
      reason: "Leaving plan mode needs the user's approval of the plan.",
      rule: planRule('exit_plan_mode'),
    });
  });

  it('in other modes the reason names the mode, or carries the rule reason', async () => {
    const { ctx } = await setup({ config: REVIEW });
    const agent = await agentIn(ctx, 'review');
    expect(await verdict(ctx, 'bash', agent)).toEqual({
      kind: 'deny',
      reason: 'tool "bash" is not available in review mode',
      rule: expect.objectContaining({ selector: 'default' }),
    });
    expect(await verdict(ctx, 'mcp__gh__list_issues', agent)).toEqual({
      kind: 'deny',
      reason:
        'tool "mcp__gh__list_issues" is not available in review mode: Review mode does not call MCP servers.',
      rule: expect.objectContaining({ selector: 'mcp__*' }),
    });
    expect(await verdict(ctx, 'write', agent)).toEqual({
      kind: 'ask',
      reason: 'tool "write" needs approval in review mode',
      rule: expect.objectContaining({ selector: 'write' }),
    });
    expect(await verdict(ctx, 'exit_plan_mode', agent)).toEqual({
      kind: 'deny',
      reason: 'tool "exit_plan_mode" is not available in review mode',
      rule: expect.objectContaining({ selector: 'default' }),
    });
  });

  it('an ask in a mode is answered by ctx.approval: allowed-once runs the tool, anything else does not', async () => {
    const { ctx, workspace } = await setup({ config: REVIEW });
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const { agent } = agentOf(
      ctx,
      [
        { text: 'W.', tool_calls: [{ name: 'write', arguments: { path: 'w.txt', content: 'w' } }] },
        { text: 'Ok.' },
      ],
      { mode: 'review' },
    );
    await agent.prompt('write');
    expect(asked.map((request) => [request.toolName, request.reason])).toEqual([
      ['write', 'tool "write" needs approval in review mode'],
    ]);
    expect(resultOf(agent.session.events, 'write')?.isError).toBe(false);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${workspace}/w.txt`, 'utf8')).toBe('w');
  });

  it('denies a second exit of an approved step unasked, naming the engine rule, not the policy', async () => {
    const { ctx } = await setup();
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const exit = { name: 'exit_plan_mode', arguments: { plan: '# P' } };
    const verdicts: PreExecuteResult[] = [];
    ctx.on('tools/verdict', (exec, v) => void (exec.name === 'exit_plan_mode' && verdicts.push(v)));
    const { agent } = agentOf(ctx, [{ tool_calls: [exit, exit] }, { text: 'Ok.' }], { mode: 'plan' });
    await agent.prompt('exit twice');
    expect(asked).toHaveLength(1);
    // The user reads why the second exit was not asked; the model reads what to do next.
    expect(verdicts.map((v) => (v.kind === 'deny' ? v.userReason : v.kind))).toEqual([
      'ask',
      alreadyApprovedUserReason(),
    ]);
    expect(resultOf(agent.session.events, 'exit_plan_mode', 0)?.data).toEqual({
      rule: planRule('exit_plan_mode'),
    });
    expect(resultOf(agent.session.events, 'exit_plan_mode', 1)).toMatchObject({
      content: `Error: ${alreadyApprovedReason('plan')}`,
      isError: true,
      data: { rule: EXIT_ALREADY_APPROVED_RULE },
    });
  });

  it('exit_plan_mode is denied in default mode', async () => {
    const { ctx } = await setup();
    const agent = await agentIn(ctx, 'default');
    expect(await verdict(ctx, 'exit_plan_mode', agent)).toEqual({
      kind: 'deny',
      reason:
        'tool "exit_plan_mode" is not available in default mode: there is no plan to approve outside a planning mode',
      rule: DEFAULT_MODE_RULE,
    });
  });
});

describe('invariant 9: a folded mode the configuration no longer defines fails closed', () => {
  const GHOST_DENIED = (tool: string) =>
    `tool "${tool}" is not available in review mode: this deployment does not define review mode, so every tool is denied; ask the user to switch mode`;

  it('after a reload without the mode: everything is denied, nothing is visible, the section says why, get() says so', async () => {
    const { ctx, fiber } = await setup({ config: REVIEW });
    const agent = await agentIn(ctx, 'review');
    await fiber!.dispose();
    await ctx.plugin(ModePlugin, {});
    expect(ctx.modes.get(agent)).toEqual({ current: 'review', defined: false });
    for (const tool of ['read', 'write', 'exit_plan_mode', 'no_such_tool']) {
      expect(await verdict(ctx, tool, agent)).toEqual({
        kind: 'deny',
        reason: GHOST_DENIED(tool),
        userReason: `tool "${tool}" is not available in review mode: this deployment does not define review mode, so every tool is denied until you switch mode`,
        rule: UNDEFINED_MODE_RULE,
      });
    }
    const { header } = await ctx.systemPrompt.assemble({ agent });
    expect(header.tools).toEqual([]);
    expect(header.system).toBe(
      'This session is in review mode, which this deployment does not define, so every tool is denied. Ask the user to switch mode (for example to default) before doing anything else.',
    );
    // The way out is a user flip; default is always valid.
    ctx.modes.set(agent, 'default');
    const next = agentOf(ctx, [{ text: 'ok' }], {}, agent.session);
    await next.agent.prompt('back');
    expect(ctx.modes.get(agent)).toEqual({ current: 'default', defined: true });
  });

  it('an unknown seeded mode is reported loudly and fails closed instead of running unrestricted', async () => {
    const { ctx, warnings } = await setup();
    const { agent } = agentOf(
      ctx,
      [{ text: 'W.', tool_calls: [{ name: 'read', arguments: { path: 'x' } }] }, { text: 'Ok.' }],
      { mode: 'ghost' },
    );
    expect(warnings.some((w) => w.includes('unknown mode `ghost`'))).toBe(true);
    await agent.prompt('go');
    expect(eventsOf(agent.session.events, 'mode/set').map((e) => e.data.mode)).toEqual(['ghost']);
    expect(ctx.modes.get(agent)).toEqual({ current: 'ghost', defined: false });
    expect(resultOf(agent.session.events, 'read')?.content).toBe(
      'Error: tool "read" is not available in ghost mode: this deployment does not define ghost mode, so every tool is denied; ask the user to switch mode',
    );
  });
});

describe('the gate checks the repository before a pattern lets git run', () => {
  const gitIn = (dir: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'pipe' });

  it('plan runs `git status` in a clean repository, and withholds it where the config names an fsmonitor', async () => {
    const { ctx, workspace } = await setup();
    gitIn(workspace, 'init', '-q');
    const status = [{ name: 'bash', arguments: { command: 'git status --short' } }];
    const run = async () => {
      const { agent } = agentOf(ctx, [{ text: 'Looking.', tool_calls: status }, { text: 'Ok.' }], {
        mode: 'plan',
      });
      await agent.prompt('status');
      return resultOf(agent.session.events, 'bash') as { content: string; isError?: boolean };
    };
    expect((await run()).isError).toBeFalsy();
    const marker = join(workspace, 'fsmonitor-ran');
    gitIn(workspace, 'config', 'core.fsmonitor', `touch '${marker}'; false`);
    const withheld = await run();
    expect(withheld.isError).toBe(true);
    expect(withheld.content).toContain("but the repository's own configuration sets `core.fsmonitor`");
    expect(existsSync(marker)).toBe(false);
  });
});
