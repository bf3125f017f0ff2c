/**
 * An unknown tool's error names only the tools the model was last shown (its agent's last request header), so it
 * never leaks a tool a mode filtered out, nor `exit_plan_mode` in default mode (invariant 2: default mode is
 * invisible). Real: the host and the real mode engine (test/engine/setup.ts), the loop with the scripted model.
 */
import { describe, expect, it } from 'vitest';
import type { Context } from 'cordis';
import { agentOf, resultOf, setup } from '../engine/setup.js';

/** The error text of one call to the unknown tool `nope` in a real turn, in `mode` when given. */
async function unknownToolError(ctx: Context, mode?: string): Promise<string> {
  const { agent } = agentOf(
    ctx,
    [{ text: 'Trying.', tool_calls: [{ name: 'nope', arguments: {} }] }, { text: 'Ok.' }],
    mode ? { mode } : {},
  );
  await agent.prompt('go');
  const result = resultOf(agent.session.events, 'nope');
  expect(result?.isError).toBe(true);
  expect(result?.content).toMatch(/^Error: unknown tool `nope`; available tools: /);
  return result!.content;
}

/** The names an unknown-tool error lists. */
const listed = (content: string): string[] => content.replace(/^.*available tools: /, '').split(', ');

describe('unknown-tool errors name only the tools the model was shown', () => {
  it('in plan mode does not name the tools the mode filtered out (write, edit)', async () => {
    const { ctx } = await setup();
    const names = listed(await unknownToolError(ctx, 'plan'));
    expect(names).toContain('read');
    expect(names).not.toContain('write');
    expect(names).not.toContain('edit');
    // bash is shown in plan: its command patterns allow read-only commands.
    expect(names).toContain('bash');
  });

  it('in default mode does not name exit_plan_mode', async () => {
    const { ctx } = await setup();
    const content = await unknownToolError(ctx);
    expect(content).not.toContain('exit_plan_mode');
    expect(listed(content)).toContain('write');
  });

  it('in default mode reads byte-identical with and without the mode plugin loaded', async () => {
    const withPlugin = await unknownToolError((await setup()).ctx);
    const without = await unknownToolError((await setup({ plugin: false })).ctx);
    expect(withPlugin).toBe(without);
  });

  it('still lists every registered tool for an agent-less call', async () => {
    const { ctx } = await setup();
    const result = await ctx.tools.execute({ callId: 'c1', name: 'nope', arguments: {} });
    expect(listed(result.content)).toEqual(ctx.tools.names());
    expect(listed(result.content)).toContain('exit_plan_mode');
  });
});
