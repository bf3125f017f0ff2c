/**
 * The gate hands the tool the path resolutions it decided on (`ToolContext.paths`): for a tool whose rule has
 * `paths:`, the resolution of the call's path; for a tool decided by name alone, none (the tool resolves its path
 * itself, the same way). Real: cordis Context, the host, the mode plugin, a landed mode.
 */
import { describe, expect, it } from 'vitest';
import { symlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool, ToolContext } from '../../src/host/index.js';
import { agentOf, setup } from './setup.js';

const MODES = {
  guarded: {
    tools: { probe: { decision: 'deny', paths: { 'notes/**': 'allow' } }, plain: 'allow' },
    default: 'deny',
  },
} as const;

function recorder(name: string, seen: (ToolContext['paths'] | undefined)[]): Tool<{ path: string }> {
  return {
    name,
    description: 'Records the paths it is handed.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: (_args, context) => {
      seen.push(context.paths);
      return { content: 'ok' };
    },
  };
}

describe('the gate hands its path resolutions to the tool', () => {
  it('passes the resolution a path rule decided on, and none for a decision by name', async () => {
    const { ctx, workspace } = await setup({ config: { modes: MODES } });
    mkdirSync(join(workspace, 'notes', 'real'), { recursive: true });
    symlinkSync('real', join(workspace, 'notes', 'link'));
    const seen: (ToolContext['paths'] | undefined)[] = [];
    ctx.tools.register(recorder('probe', seen));
    ctx.tools.register(recorder('plain', seen));
    const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode: 'guarded' });
    await agent.prompt('land');
    const run = (name: string, path: string) =>
      ctx.tools.execute({ callId: 'c', name, arguments: { path }, agent });
    expect((await run('probe', 'notes/link/x.md')).content).toBe('ok');
    expect(seen[0]?.get('notes/link/x.md')).toMatchObject({
      ok: true,
      relative: 'notes/real/x.md',
      missing: 1,
    });
    expect((await run('plain', 'notes/link/x.md')).content).toBe('ok');
    expect(seen[1]).toBeUndefined();
    // A denied call runs nothing.
    expect((await run('probe', 'other/x.md')).isError).toBe(true);
    expect(seen).toHaveLength(2);
  });
});
