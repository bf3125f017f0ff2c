/**
 * `ctx.systemPrompt` on the real host: section rendering order, empty text, text functions of the context,
 * duplicate names, disposers and plugin lifetimes, and the assemble waterfall's view of tools.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/host/index.js';
import { setup } from './setup.js';

describe('ctx.systemPrompt', () => {
  it('renders sections by order, then name, joined with a blank line, dropping empty text', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.systemPrompt.section({ name: 'tools-b', order: 100, text: 'B' });
    ctx.systemPrompt.section({ name: 'tools-a', order: 100, text: 'A' });
    ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'P' });
    ctx.systemPrompt.section({ name: 'mode', order: 50, text: () => '' });
    const { header, assembly } = await ctx.systemPrompt.assemble({});
    expect(header.system).toBe('P\n\nA\n\nB');
    expect(assembly.sections.map((section) => section.name)).toEqual(['persona', 'tools-a', 'tools-b']);
  });

  it('evaluates text functions with the assemble context', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.systemPrompt.section({
      name: 'who',
      order: 0,
      text: (context) => (context.agent ? `agent ${context.agent.id}` : 'nobody'),
    });
    expect((await ctx.systemPrompt.assemble()).header.system).toBe('nobody');
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([]),
    });
    expect((await ctx.systemPrompt.assemble({ agent })).header.system).toBe(`agent ${agent.id}`);
  });

  it('refuses duplicate names; the disposer and the plugin lifetime remove a section', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const dispose = ctx.systemPrompt.section({ name: 'x', order: 0, text: 'X' });
    expect(() => ctx.systemPrompt.section({ name: 'x', order: 1, text: 'Y' })).toThrow(/already registered/);
    dispose();
    expect((await ctx.systemPrompt.assemble()).header.system).toBe('');
    const fiber = await ctx.plugin({
      inject: ['systemPrompt'],
      apply: (child) => void child.systemPrompt.section({ name: 'p', order: 0, text: 'from plugin' }),
    });
    expect((await ctx.systemPrompt.assemble()).header.system).toBe('from plugin');
    await fiber.dispose();
    expect((await ctx.systemPrompt.assemble()).header.system).toBe('');
  });

  it('hands listeners the registered tool schemas; an outermost filter sees tools added by inner listeners', async () => {
    const { ctx } = await setup();
    ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
      const assembly = await next();
      assembly.tools.push({ name: 'late', description: 'Late.', parameters: {} });
      return assembly;
    });
    ctx.on(
      'system-prompt/assemble',
      async (_assembly, _context, next) => {
        const assembly = await next();
        assembly.tools = assembly.tools.filter((tool) => tool.name !== 'bash' && tool.name !== 'late');
        return assembly;
      },
      { prepend: true },
    );
    const { header } = await ctx.systemPrompt.assemble();
    expect(header.tools.map((tool) => tool.name)).toEqual([
      'read',
      'list',
      'grep',
      'write',
      'edit',
      'todo_write',
    ]);
  });
});
