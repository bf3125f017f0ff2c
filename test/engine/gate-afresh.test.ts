/**
 * The gate judges every call afresh: a tool registered again with other annotations (its hints), a mode flip, a
 * call whose arguments decide, a policy reload and a `tools/pre-execute` listener added later all change the very
 * next verdict. Real: cordis Context, the host, the mode plugin, the loop.
 */
import { describe, expect, it } from 'vitest';
import type { Context } from 'cordis';
import type { Agent, PreExecuteResult, Tool } from '../../src/host/index.js';
import { ModePlugin } from '../../src/engine/index.js';
import { agentOf, setup } from './setup.js';

const MODES = {
  review: { tools: { read: 'allow' }, effects: { readOnly: 'allow' }, default: 'deny' },
  guarded: { tools: { write: { decision: 'deny', paths: { 'notes/**': 'allow' } } }, default: 'deny' },
} as const;

async function agentIn(ctx: Context, mode?: string): Promise<Agent> {
  const { agent } = agentOf(ctx, [{ text: 'ok' }], mode ? { mode } : {});
  await agent.prompt('land');
  return agent;
}

function judge(ctx: Context, agent: Agent, name: string, args: object = {}): Promise<PreExecuteResult> {
  return ctx.tools.judge({ callId: 'c1', name, arguments: args, agent });
}

function probe(readOnly: boolean): Tool<Record<string, never>> {
  return {
    name: 'probe',
    description: 'Probes.',
    parameters: { type: 'object' },
    annotations: { readOnlyHint: readOnly },
    execute: () => ({ content: 'ok' }),
  };
}

describe('the gate judges afresh', () => {
  it('judges a tool registered again under the same name with its new annotations', async () => {
    const { ctx } = await setup({ config: { modes: MODES } });
    const agent = await agentIn(ctx, 'review');
    const dispose = ctx.tools.register(probe(true));
    expect((await judge(ctx, agent, 'probe')).kind).toBe('allow');
    expect((await judge(ctx, agent, 'probe')).kind).toBe('allow');
    dispose();
    ctx.tools.register(probe(false));
    expect((await judge(ctx, agent, 'probe')).kind).toBe('deny');
  });

  it('follows a mode flip: the same tool is judged in the newly landed mode', async () => {
    const { ctx } = await setup({ config: { modes: MODES } });
    const { agent } = agentOf(ctx, [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    await agent.prompt('one');
    expect((await judge(ctx, agent, 'write', { path: 'x', content: 'x' })).kind).toBe('allow');
    ctx.modes.set(agent, 'review');
    await agent.prompt('two');
    expect((await judge(ctx, agent, 'write', { path: 'x', content: 'x' })).kind).toBe('deny');
    ctx.modes.set(agent, 'default');
    await agent.prompt('three');
    expect((await judge(ctx, agent, 'write', { path: 'x', content: 'x' })).kind).toBe('allow');
  });

  it('judges each call whose arguments decide by its own arguments', async () => {
    const { ctx } = await setup({ config: { modes: MODES } });
    const agent = await agentIn(ctx, 'guarded');
    expect((await judge(ctx, agent, 'write', { path: 'notes/a.md', content: 'x' })).kind).toBe('allow');
    expect((await judge(ctx, agent, 'write', { path: 'src/a.ts', content: 'x' })).kind).toBe('deny');
    expect((await judge(ctx, agent, 'write', { path: 'notes/b.md', content: 'x' })).kind).toBe('allow');
  });

  it('starts over when the policies are reloaded', async () => {
    const { ctx, fiber } = await setup({ config: { modes: MODES } });
    const agent = await agentIn(ctx, 'review');
    expect((await judge(ctx, agent, 'read', { path: 'a' })).kind).toBe('allow');
    await fiber!.dispose();
    const narrowed = { ...MODES, review: { tools: { read: 'deny' }, default: 'deny' } } as const;
    await ctx.plugin(ModePlugin, { modes: narrowed });
    expect((await judge(ctx, agent, 'read', { path: 'a' })).kind).toBe('deny');
  });

  it('lets a tools/pre-execute listener added after an allow narrow the next verdict, and not once disposed', async () => {
    const { ctx } = await setup({ config: { modes: MODES } });
    const agent = await agentIn(ctx, 'review');
    expect(await judge(ctx, agent, 'read')).toEqual({ kind: 'allow' });
    const dispose = ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'not now' }));
    expect(await judge(ctx, agent, 'read')).toEqual({ kind: 'deny', reason: 'not now' });
    dispose();
    expect(await judge(ctx, agent, 'read')).toEqual({ kind: 'allow' });
  });
});
