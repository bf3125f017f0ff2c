/**
 * `ctx.systemPrompt.view()`: a filter the host applies after the whole assemble waterfall, cached per key and
 * tool list. Real: the host on a cordis Context, real tools in the registry, real assemble listeners. The cache
 * is observed through the number of `keep` calls, and each cached answer is checked against a fresh filter.
 */
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import type { Assembly, AssembleContext, Tool, ToolSchema } from '../../src/host/index.js';
import { setup } from './setup.js';

const tool = (name: string): Tool => ({
  name,
  description: name,
  parameters: { type: 'object' },
  execute: () => ({ content: 'ok' }),
});

async function withTools(...names: string[]): Promise<Context> {
  const { ctx } = await setup({ builtinTools: false });
  for (const name of names) ctx.tools.register(tool(name));
  return ctx;
}

const names = async (ctx: Context, context: AssembleContext = {}) =>
  (await ctx.systemPrompt.assemble(context)).header.tools.map((schema) => schema.name);

describe('tool views', () => {
  it('filter after every listener, the outermost included', async () => {
    const ctx = await withTools('read', 'deploy');
    ctx.systemPrompt.view({ key: () => 'k', keep: (schema) => schema.name !== 'deploy' });
    ctx.on(
      'system-prompt/assemble',
      async (_a: Assembly, _c: AssembleContext, next: () => Promise<Assembly>) => {
        const result = await next();
        return {
          ...result,
          tools: [...result.tools, { name: 'deploy', description: 'again', parameters: {} }],
        };
      },
      { prepend: true },
    );
    expect(await names(ctx)).toEqual(['read']);
  });

  it('ask `key` once per assembly and `keep` once per tool, and follow the key and the registry at once', async () => {
    const ctx = await withTools('a', 'b', 'c');
    let keys = 0;
    let asked = 0;
    let mode = 'one';
    ctx.systemPrompt.view({
      key: () => (keys++, mode),
      keep: (schema: ToolSchema, key: unknown) => {
        asked++;
        return key === 'one' ? schema.name !== 'b' : schema.name === 'b';
      },
    });
    expect(await names(ctx)).toEqual(['a', 'c']);
    expect([keys, asked]).toEqual([1, 3]);
    mode = 'two';
    expect(await names(ctx)).toEqual(['b']);
    expect([keys, asked]).toEqual([2, 6]);
    const dispose = ctx.tools.register(tool('d'));
    mode = 'one';
    expect(await names(ctx)).toEqual(['a', 'c', 'd']);
    dispose();
    expect(await names(ctx)).toEqual(['a', 'c']);
  });

  it('re-filter every time a listener hands over a list it could change later', async () => {
    const ctx = await withTools('a', 'b');
    let asked = 0;
    ctx.systemPrompt.view({ key: () => 'k', keep: (schema) => (asked++, schema.name !== 'x') });
    const shared: ToolSchema[] = [{ name: 'a', description: 'a', parameters: {} }];
    ctx.on('system-prompt/assemble', async (assembly: Assembly) => ({ ...assembly, tools: shared }));
    expect(await names(ctx)).toEqual(['a']);
    shared.push(
      { name: 'x', description: 'x', parameters: {} },
      { name: 'y', description: 'y', parameters: {} },
    );
    expect(await names(ctx)).toEqual(['a', 'y']);
    expect(asked).toBe(4);
  });

  it('hide every tool when a view throws, and go away with their plugin', async () => {
    const { ctx, warnings } = await setup({ builtinTools: false });
    ctx.tools.register(tool('a'));
    let fail = true;
    const fiber = ctx.plugin({
      name: 'view',
      inject: ['systemPrompt'],
      apply(plugin: Context) {
        plugin.systemPrompt.view({
          key: () => {
            if (fail) throw new Error('view down');
            return 'k';
          },
          keep: () => false,
        });
      },
    });
    await fiber;
    expect(await names(ctx)).toEqual([]);
    expect(warnings.join('\n')).toContain('a tool view failed; no tool is shown this request: view down');
    fail = false;
    expect(await names(ctx)).toEqual([]);
    await fiber.dispose();
    expect(await names(ctx)).toEqual(['a']);
    expect(() => ctx.systemPrompt.view({ key: () => 1 } as never)).toThrow('needs `key` and `keep`');
  });
});
