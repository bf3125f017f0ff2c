/**
 * The path resolutions a guard decided on travel to the tool (`ToolContext.paths`) and nowhere else: not from a
 * `tools/pre-execute` listener, not into the verdict `tools/verdict` observers see, and for an approval that
 * revised the arguments, those of the revision's own judgement. Real host, real guards and listeners.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWorkspacePath, type ResolvedWorkspacePath } from '../../src/files/resolve-path.js';
import type { PreExecuteResult, Tool, ToolContext } from '../../src/host/index.js';
import { setup } from './setup.js';

function probe(seen: (ToolContext['paths'] | undefined)[]): Tool<{ path: string }> {
  return {
    name: 'probe',
    description: 'Records the paths it is handed.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
    execute: (_args, context) => {
      seen.push(context.paths);
      return { content: 'ok' };
    },
  };
}

async function host() {
  const base = await setup({ builtinTools: false });
  writeFileSync(join(base.workspace, 'a.md'), 'a');
  writeFileSync(join(base.workspace, 'b.md'), 'b');
  const seen: (ToolContext['paths'] | undefined)[] = [];
  base.ctx.tools.register(probe(seen));
  const resolve = (path: string) => resolveWorkspacePath(base.workspace, path) as ResolvedWorkspacePath;
  return { ...base, seen, resolve };
}

describe('checked paths from the gate to the tool', () => {
  it('hands a guard’s paths to the tool, as a copy, and keeps them out of the observed verdict', async () => {
    const { ctx, seen, resolve } = await host();
    const paths = new Map([['a.md', resolve('a.md')]]);
    ctx.tools.guard(() => ({ kind: 'allow', paths }));
    const observed: PreExecuteResult[] = [];
    ctx.on('tools/verdict', (_exec, verdict) => void observed.push(verdict));
    await ctx.tools.execute({ callId: 'c1', name: 'probe', arguments: { path: 'a.md' } });
    expect(seen[0]?.get('a.md')).toEqual(paths.get('a.md'));
    expect(seen[0]).not.toBe(paths);
    expect(observed).toEqual([{ kind: 'allow' }]);
  });

  it('never takes paths from a tools/pre-execute listener', async () => {
    const { ctx, seen, resolve } = await host();
    ctx.on('tools/pre-execute', async () => ({
      kind: 'allow',
      paths: new Map([['a.md', resolve('b.md')]]),
    }));
    await ctx.tools.execute({ callId: 'c1', name: 'probe', arguments: { path: 'a.md' } });
    expect(seen).toEqual([undefined]);
  });

  it('drops entries that are not resolved paths', async () => {
    const { ctx, seen } = await host();
    const junk = new Map<unknown, unknown>([
      ['a.md', { ok: false, reason: 'x' }],
      [42, { ok: true, target: '/x', anchor: '1:2' }],
    ]);
    ctx.tools.guard(() => ({ kind: 'allow', paths: junk }) as unknown as PreExecuteResult);
    await ctx.tools.execute({ callId: 'c1', name: 'probe', arguments: { path: 'a.md' } });
    expect(seen).toEqual([undefined]);
  });

  it('an approval that revises the arguments runs with the revision’s own judgement', async () => {
    const { ctx, seen, resolve } = await host();
    ctx.tools.guard((exec) => {
      const path = (exec.arguments as { path: string }).path;
      return { kind: 'ask', reason: 'check', paths: new Map([[path, resolve(path)]]) };
    });
    ctx.on('approval/request', async () => ({ outcome: 'allowed-once', arguments: { path: 'b.md' } }));
    await ctx.tools.execute({ callId: 'c1', name: 'probe', arguments: { path: 'a.md' } });
    expect([...(seen[0]?.keys() ?? [])]).toEqual(['b.md']);
    expect(seen[0]?.get('b.md')?.relative).toBe('b.md');
  });
});
