/**
 * How the host calls plugin listeners (`src/host/contain.ts`). `session/event`, `agent/created` and `tools/verdict`
 * are contained: one listener's throw is logged and breaks neither the host nor the other listeners. The three
 * waterfalls `tools/pre-execute`, `system-prompt/assemble` and `approval/request` are cordis's own, and the host
 * fails closed when a listener throws. Real: cordis Contexts, the host applied, listeners registered through
 * `ctx.on`, in-memory sessions, a real tool.
 */
import { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { applyHost } from '../../src/host/host.js';
import type {
  Agent,
  Assembly,
  PreExecuteResult,
  Session,
  SessionEvent,
  ToolExec,
} from '../../src/host/types.js';
import { scriptedModel } from '../../src/host/index.js';
import { setup, tempDir } from './setup.js';

const exec = (name = 'anything'): ToolExec => ({ callId: 'c1', name, arguments: {} });

type Next = () => Promise<void>;

describe('session/event listeners are contained', () => {
  it('one that throws before next(), after it, or never calls it breaks neither the append nor the others', async () => {
    const { ctx, warnings } = await setup({ builtinTools: false });
    const seen: string[] = [];
    ctx.on('session/event', async () => {
      throw new Error('before next');
    });
    ctx.on('session/event', async (_s: Session, _e: SessionEvent, next: Next) => {
      await next();
      throw new Error('after next');
    });
    ctx.on('session/event', async () => {
      // never calls next()
    });
    ctx.on('session/event', async (_s: Session, event: SessionEvent, next: Next) => {
      seen.push(event.type);
      await next();
    });
    const session = ctx.sessions.create({ inMemory: true });
    await expect(session.append('turn/start', { turn: 1 })).resolves.toMatchObject({ seq: 1 });
    expect(seen).toEqual(['turn/start']);
    expect(warnings.filter((w) => w.includes('session/event listener failed'))).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/before next/);
    expect(warnings.join('\n')).toMatch(/after next/);
  });

  it('run in cordis order (prepended outermost), next() at most once, and go away with their plugin', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const trace: string[] = [];
    const around =
      (label: string) =>
      async (_s: Session, _e: SessionEvent, next: Next): Promise<void> => {
        trace.push(`${label}>`);
        await next();
        await next();
        trace.push(`<${label}`);
      };
    ctx.on('session/event', around('a'));
    const fiber = ctx.plugin({
      name: 'outer',
      apply(plugin: Context) {
        plugin.on('session/event', around('b'), { prepend: true });
      },
    });
    await fiber;
    const session = ctx.sessions.create({ inMemory: true });
    await session.append('turn/start', { turn: 1 });
    expect(trace).toEqual(['b>', 'a>', '<a', '<b']);
    await fiber.dispose();
    trace.length = 0;
    await session.append('user/message', { text: 'again' });
    expect(trace).toEqual(['a>', '<a']);
  });

  it('are called from a context with a filter too, and a listener that is not a function is refused', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const seen: string[] = [];
    const filtered = ctx.extend({ [Context.filter]: () => false });
    filtered.on('session/event', async (_s: Session, event: SessionEvent, next: Next) => {
      seen.push(event.type);
      await next();
    });
    await ctx.sessions.create({ inMemory: true }).append('turn/start', { turn: 1 });
    expect(seen).toEqual(['turn/start']);
    expect(() => ctx.on('session/event', 'nope' as never)).toThrow(TypeError);
  });

  it('a listener registered before the host is reported, since it is never called', async () => {
    const ctx = new Context();
    const warnings: string[] = [];
    ctx.logger.exporter({
      export(message) {
        if (message.type === 'warn') warnings.push(message.args.map(String).join(' '));
      },
    });
    ctx.on('session/event', async (_s: unknown, _e: unknown, next: Next) => next());
    await applyHost(ctx, { workspace: tempDir('dsh-contain-'), builtinTools: false });
    expect(warnings).toEqual([
      'a session/event listener was registered before the host started; it is never called',
    ]);
  });
});

describe('agent/created and tools/verdict listeners are contained', () => {
  it('a throwing or rejecting listener is logged; the others run, in order, before the call returns', async () => {
    const { ctx, warnings } = await setup({ builtinTools: false });
    const seen: string[] = [];
    for (const name of ['agent/created', 'tools/verdict'] as const) {
      ctx.on(name, () => {
        throw new Error(`${name} throws`);
      });
      ctx.on(name, async () => {
        throw new Error(`${name} rejects`);
      });
      ctx.on(name, () => {
        seen.push(name);
      });
    }
    ctx.tools.register({
      name: 'probe',
      description: 'probes',
      parameters: { type: 'object' },
      execute: () => ({ content: 'ran' }),
    });
    const agent: Agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel([]),
    });
    expect(seen).toEqual(['agent/created']);
    expect(await ctx.tools.execute({ ...exec('probe'), agent })).toEqual({ content: 'ran' });
    expect(seen).toEqual(['agent/created', 'tools/verdict']);
    await new Promise((resolve) => setImmediate(resolve));
    const logged = warnings.join('\n');
    for (const text of [
      'agent/created throws',
      'agent/created rejects',
      'tools/verdict throws',
      'tools/verdict rejects',
    ])
      expect(logged).toContain(text);
  });
});

describe('the waterfalls are cordis’s own, and the host fails closed', () => {
  it('a throwing tools/pre-execute listener denies; an assemble listener that calls next() twice rejects the assembly', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.on('tools/pre-execute', async () => {
      throw new Error('guard down');
    });
    expect(await ctx.tools.judge(exec('write'))).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('guard down'),
    });
    ctx.on('system-prompt/assemble', async (_a: Assembly, _c: unknown, next: () => Promise<Assembly>) => {
      await next();
      await next();
      return { sections: [], tools: [] };
    });
    await expect(ctx.systemPrompt.assemble({})).rejects.toThrow('next() called multiple times');
  });

  it('a throwing approval answerer does not approve: the answer is unavailable', async () => {
    const { ctx } = await setup({ builtinTools: false });
    ctx.on('approval/request', async () => {
      throw new Error('answerer down');
    });
    ctx.on(
      'approval/request',
      async () => ({ outcome: 'allowed-once' }) as const,
      // Inner: the outer listener throws before it is reached.
    );
    expect(await ctx.approval.request({ toolName: 'write', callId: 'c1' })).toEqual({
      outcome: 'unavailable',
    });
  });

  it('a listener registered before the host is called, as cordis would (nothing is dropped)', async () => {
    const ctx = new Context();
    ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'early' }) as PreExecuteResult);
    await applyHost(ctx, { workspace: tempDir('dsh-contain-'), builtinTools: false });
    expect(await ctx.tools.judge(exec('write'))).toEqual({ kind: 'deny', reason: 'early' });
  });
});
