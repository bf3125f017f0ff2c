/**
 * The waterfalls the host runs itself (`tools/pre-execute`, `system-prompt/assemble`; `src/host/contain.ts`):
 * the same order, `next()` rule and error propagation as cordis's own `waterfall`, listeners that go away with
 * their plugin, and a listener registered before the host took over still called. Real: cordis Contexts, the
 * host applied, listeners registered through `ctx.on`; cordis's own dispatch on a bare Context is the reference.
 */
import { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { applyHost } from '../../src/host/host.js';
import type { Assembly, PreExecuteResult, ToolExec } from '../../src/host/types.js';
import { tempDir } from '../engine/setup.js';

async function host(ctx = new Context()) {
  await applyHost(ctx, { workspace: tempDir('dsh-owned-'), builtinTools: false });
  return ctx;
}

const exec = (name = 'anything'): ToolExec => ({ callId: 'c1', name, arguments: {} });
const ALLOW: PreExecuteResult = { kind: 'allow' };

type Step = (
  trace: string[],
) => (exec: ToolExec, next: () => Promise<PreExecuteResult>) => Promise<PreExecuteResult>;

/** Listener shapes: record before and after next(), one that answers without next(), one that edits the answer. */
const around =
  (label: string): Step =>
  (trace) =>
  async (_exec, next) => {
    trace.push(`${label}>`);
    const result = await next();
    trace.push(`<${label}`);
    return result;
  };
const shortCircuit =
  (label: string): Step =>
  (trace) =>
  async () => {
    trace.push(`${label}!`);
    return { kind: 'ask', reason: label };
  };

const layouts: { name: string; steps: [Step, boolean][] }[] = [
  {
    name: 'plain, prepended, plain',
    steps: [
      [around('a'), false],
      [around('b'), true],
      [around('c'), false],
    ],
  },
  {
    name: 'prepended twice',
    steps: [
      [around('a'), true],
      [around('b'), true],
    ],
  },
  {
    name: 'an inner one answers alone',
    steps: [
      [around('a'), false],
      [shortCircuit('b'), false],
      [around('c'), false],
    ],
  },
];

describe('owned waterfalls', () => {
  for (const layout of layouts)
    it(`run in cordis's order: ${layout.name}`, async () => {
      const run = async (ctx: Context, dispatch: () => Promise<PreExecuteResult>) => {
        const trace: string[] = [];
        for (const [step, prepend] of layout.steps) ctx.on('tools/pre-execute', step(trace), { prepend });
        return { result: await dispatch(), trace };
      };
      const bare = new Context();
      const reference = await run(bare, () => bare.waterfall('tools/pre-execute', exec(), async () => ALLOW));
      const ctx = await host();
      const ours = await run(ctx, () => ctx.tools.judge(exec()));
      expect(ours).toEqual(reference);
      expect(ours.trace.length).toBeGreaterThan(0);
    });

  it('propagate a listener error to the caller: the gate denies, the assembly rejects', async () => {
    const ctx = await host();
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

  it('let a table hit skip the dispatch only while nobody listens', async () => {
    const ctx = await host();
    expect(ctx.tools.judgeSync(exec())).toEqual(ALLOW);
    const fiber = ctx.plugin({
      name: 'narrow',
      apply(plugin: Context) {
        plugin.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'no' }) as PreExecuteResult);
      },
    });
    await fiber;
    expect(ctx.tools.judgeSync(exec())).toBeUndefined();
    expect(await ctx.tools.judge(exec())).toEqual({ kind: 'deny', reason: 'no' });
    await fiber.dispose();
    expect(ctx.tools.judgeSync(exec())).toEqual(ALLOW);
  });

  it('still call a listener cordis held before the host took over (fail closed, not forgotten)', async () => {
    const ctx = new Context();
    const seen: string[] = [];
    ctx.on('tools/pre-execute', async (call: ToolExec) => {
      seen.push(`early ${call.name}`);
      return { kind: 'deny', reason: 'registered before the host' } as PreExecuteResult;
    });
    ctx.on('system-prompt/assemble', async (assembly: Assembly) => ({
      ...assembly,
      sections: [...assembly.sections, { name: 'early', order: 1, text: 'from before the host' }],
    }));
    await host(ctx);
    ctx.on('tools/pre-execute', async (call: ToolExec, next: () => Promise<PreExecuteResult>) => {
      seen.push(`late ${call.name}`);
      return next();
    });
    expect(ctx.tools.judgeSync(exec('write'))).toBeUndefined();
    expect(await ctx.tools.judge(exec('write'))).toEqual({
      kind: 'deny',
      reason: 'registered before the host',
    });
    expect(seen).toEqual(['late write', 'early write']);
    expect((await ctx.systemPrompt.assemble({})).header.system).toBe('from before the host');
  });

  it('say so when a contained listener was registered before the host, which never calls it', async () => {
    const ctx = new Context();
    const warnings: string[] = [];
    ctx.logger.exporter({
      export(message) {
        if (message.type === 'warn') warnings.push(message.args.map(String).join(' '));
      },
    });
    ctx.on('session/event', async (_s: unknown, _e: unknown, next: () => Promise<void>) => next());
    await host(ctx);
    expect(warnings).toEqual([
      'a session/event listener was registered before the host started; it is never called',
    ]);
  });

  it('refuse the `after` option, which only session/event has', async () => {
    const ctx = await host();
    expect(() =>
      ctx.on('tools/pre-execute', async (_e: ToolExec, next: () => Promise<PreExecuteResult>) => next(), {
        after: () => true,
      }),
    ).toThrow('the `after` option is for session/event only');
    expect(ctx.tools.judgeSync(exec())).toEqual(ALLOW);
  });
});
