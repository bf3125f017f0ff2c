/**
 * Invariants 2 and 3: the soft layer (what the model sees). Real: cordis Context, the host's prompt assembly, tool
 * runtime, agents and loop, the scripted model; other plugins' assemble listeners are real listeners, registered
 * before and after the engine, inner and outermost.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptEntry, SessionEvent, Tool } from '../../src/host/index.js';
import { EXIT_PLAN_MODE, MODE_SECTION } from '../../src/engine/index.js';
import { agentOf, eventsOf, planRule, resultOf, setup } from './setup.js';

// bash is visible in plan: its command patterns allow read-only commands.
const PLAN_TOOLS = ['read', 'list', 'grep', 'bash', 'todo_write', EXIT_PLAN_MODE];
const DEFAULT_TOOLS = ['read', 'list', 'grep', 'write', 'edit', 'bash', 'todo_write'];

/** A default-mode session that reads, writes and keeps todos over two turns. */
const SCRIPT: ScriptEntry[] = [
  { text: 'Reading.', tool_calls: [{ name: 'read', arguments: { path: 'notes.txt' } }] },
  {
    text: 'Writing.',
    tool_calls: [
      { name: 'write', arguments: { path: 'out.txt', content: 'hello' } },
      { name: 'todo_write', arguments: { todos: [{ content: 'ship', status: 'pending' }] } },
    ],
  },
  { text: 'Done.' },
  { text: 'Second turn.', tool_calls: [{ name: 'list', arguments: { path: '.' } }] },
  { text: 'Bye.' },
];

/** The log without its time stamps. */
const timeless = (events: readonly SessionEvent[]) => events.map(({ time: _time, ...rest }) => rest);

async function runDefaultSession(plugin: boolean) {
  const { ctx, workspace } = await setup({ plugin });
  writeFileSync(join(workspace, 'notes.txt'), 'some notes\n');
  ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'You are a careful engineer.' });
  ctx.systemPrompt.section({ name: 'guidance', order: 100, text: 'Use the tools.' });
  const { agent, model } = agentOf(ctx, SCRIPT);
  await agent.prompt('first');
  await agent.prompt('second');
  return { events: timeless(agent.session.events), requests: model.requests };
}

describe('invariant 2: default mode is invisible', () => {
  it('the same scripted default-mode session sends byte-identical requests and logs identical headers with and without the plugin', async () => {
    const without = await runDefaultSession(false);
    const withPlugin = await runDefaultSession(true);
    expect(JSON.stringify(withPlugin.requests)).toBe(JSON.stringify(without.requests));
    const headers = (events: ReturnType<typeof timeless>) =>
      JSON.stringify(events.filter((e) => e.type === 'request/header' || e.type === 'request/header-delta'));
    expect(headers(withPlugin.events)).toBe(headers(without.events));
    expect(JSON.stringify(withPlugin.events)).toBe(JSON.stringify(without.events));
    expect(withPlugin.requests[0]!.header.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);
  });

  it('exit_plan_mode is registered but filtered out of a default-mode assembly, and the mode section is empty', async () => {
    const { ctx } = await setup();
    expect(ctx.tools.get(EXIT_PLAN_MODE)).toBeDefined();
    const { agent } = agentOf(ctx, []);
    const { assembly, header } = await ctx.systemPrompt.assemble({ agent });
    expect(header.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);
    expect(assembly.sections.map((section) => section.name)).not.toContain(MODE_SECTION);
    // Agent-less assemblies are default-shaped too.
    const bare = await ctx.systemPrompt.assemble({});
    expect(bare.header.tools.map((tool) => tool.name)).toEqual(DEFAULT_TOOLS);
    expect(bare.header.system).toBe('');
  });
});

describe('invariant 3: in a mode the filtered tools and the section reach the request and the logged header', () => {
  it('a plan-seeded agent: mode/set precedes the first request/header, which is plan-shaped and equals what was sent', async () => {
    const { ctx } = await setup();
    ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'PERSONA' });
    ctx.systemPrompt.section({ name: 'guidance', order: 100, text: 'GUIDANCE' });
    const { agent, model } = agentOf(ctx, [{ text: 'Looking.' }], { mode: 'plan' });
    await agent.prompt('plan it');
    const types = agent.session.events.map((event) => event.type);
    expect(types.slice(0, 5)).toEqual([
      'turn/start',
      'mode/set',
      'user/message',
      'step/start',
      'request/header',
    ]);
    const header = eventsOf(agent.session.events, 'request/header')[0]!.data;
    expect(header.reason).toBe('initial');
    expect(header.header.tools.map((tool) => tool.name)).toEqual(PLAN_TOOLS);
    const planSection = ctx.modes.list().find((mode) => mode.name === 'plan');
    expect(planSection).toBeDefined();
    // Section order 50: after persona (0), before tool guidance (100).
    expect(header.header.system).toMatch(/^PERSONA\n\n# Plan mode\n[\s\S]*\n\nGUIDANCE$/);
    expect(model.requests[0]!.header).toEqual(header.header);
  });

  it('a tool added by an inner listener after next() is filtered in plan mode', async () => {
    const { ctx } = await setup();
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const result = await next();
      return {
        ...result,
        tools: [...result.tools, { name: 'deploy', description: 'Deploy.', parameters: { type: 'object' } }],
      };
    });
    const plan = agentOf(ctx, [{ text: 'ok' }], { mode: 'plan' });
    await plan.agent.prompt('x');
    const inPlan = await ctx.systemPrompt.assemble({ agent: plan.agent });
    expect(inPlan.header.tools.map((tool) => tool.name)).toEqual(PLAN_TOOLS);
    const fresh = agentOf(ctx, []);
    const inDefault = await ctx.systemPrompt.assemble({ agent: fresh.agent });
    expect(inDefault.header.tools.map((tool) => tool.name)).toEqual([...DEFAULT_TOOLS, 'deploy']);
  });

  it('an outer listener cannot re-add a schema the mode hides, and the gate denies the call the model names anyway', async () => {
    const { ctx } = await setup();
    let ran = 0;
    const deploy: Tool<Record<string, never>> = {
      name: 'deploy',
      description: 'Deploy to production.',
      parameters: { type: 'object', additionalProperties: false },
      execute: () => {
        ran++;
        return { content: 'deployed' };
      },
    };
    ctx.tools.register(deploy);
    // Registered after the engine with prepend: the outermost listener, whose result the mode's view still filters.
    ctx.on(
      'system-prompt/assemble',
      async (_assembly, _context, next) => {
        const result = await next();
        if (result.tools.some((tool) => tool.name === 'deploy')) return result;
        return {
          ...result,
          tools: [
            ...result.tools,
            { name: 'deploy', description: deploy.description, parameters: deploy.parameters },
          ],
        };
      },
      { prepend: true },
    );
    const { agent, model } = agentOf(
      ctx,
      [{ text: 'Deploying.', tool_calls: [{ name: 'deploy', arguments: {} }] }, { text: 'Denied.' }],
      { mode: 'plan' },
    );
    await agent.prompt('deploy it');
    expect(model.requests[0]!.header.tools.map((tool) => tool.name)).toEqual(PLAN_TOOLS);
    expect(ran).toBe(0);
    expect(resultOf(agent.session.events, 'deploy')).toEqual({
      callId: 'call_1_1_1',
      name: 'deploy',
      content:
        'Error: tool "deploy" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready',
      isError: true,
      data: {
        rule: planRule('default'),
        userReason: 'tool "deploy" is not available in plan mode until you approve a plan',
      },
    });
  });

  it('a tool is judged with its annotations as hints: a read-only tool is visible in plan, the same without hints is not', async () => {
    const { ctx } = await setup();
    const make = (name: string, readOnly?: boolean): Tool => ({
      name,
      description: name,
      parameters: { type: 'object' },
      ...(readOnly === undefined ? {} : { annotations: { readOnlyHint: readOnly } }),
      execute: () => ({ content: 'ok' }),
    });
    ctx.tools.register(make('mcp__gh__list_issues', true));
    ctx.tools.register(make('mcp__gh__create_issue'));
    const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode: 'plan' });
    await agent.prompt('x');
    const { header } = await ctx.systemPrompt.assemble({ agent });
    expect(header.tools.map((tool) => tool.name)).toEqual([...PLAN_TOOLS, 'mcp__gh__list_issues']);
  });

  it('a landed flip changes what the model sees at the next step, logged as a request/header-delta', async () => {
    const { ctx } = await setup();
    const { agent, model } = agentOf(ctx, [
      { text: 'One.', tool_calls: [{ name: 'list', arguments: { path: '.' } }] },
      { text: 'Two.' },
    ]);
    // A user flip that arrives mid-step lands at that step's step/end.
    ctx.on('session/event', async (_session, event, next) => {
      await next();
      if (event.type === 'tool/result') ctx.modes.set(agent, 'plan');
    });
    await agent.prompt('go');
    const events = agent.session.events;
    const types = events.map((event) => event.type);
    const at = types.indexOf('mode/set');
    expect(types.slice(at - 1, at + 4)).toEqual([
      'step/end',
      'mode/set',
      'context/message',
      'step/start',
      'request/header-delta',
    ]);
    const delta = eventsOf(events, 'request/header-delta')[0]!.data;
    expect(delta.removed).toEqual(['write', 'edit']);
    expect(delta.added?.map((tool) => tool.name)).toEqual([EXIT_PLAN_MODE]);
    expect(delta.system).toContain('# Plan mode');
    expect(model.requests[1]!.header.tools.map((tool) => tool.name)).toEqual(PLAN_TOOLS);
  });
});
