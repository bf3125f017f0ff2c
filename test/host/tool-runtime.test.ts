/**
 * The tool runtime and the approval seam on the real host: allow, deny, ask with each approval outcome (and the
 * audit events), bad arguments, throwing tools and listeners, unknown tools, registration as an effect.
 */
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import {
  scriptedModel,
  type ApprovalOutcome,
  type PreExecuteResult,
  type Tool,
  type ToolExec,
} from '../../src/host/index.js';
import { setup } from './setup.js';

const add: Tool<{ a: number; b: number }> = {
  name: 'add',
  description: 'Adds.',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: (args) => ({ content: String(args.a + args.b) }),
};

const exec = (partial: Partial<ToolExec> = {}): ToolExec => ({
  callId: 'c1',
  name: 'add',
  arguments: { a: 1, b: 2 },
  ...partial,
});

async function host() {
  const base = await setup({ builtinTools: false });
  base.ctx.tools.register(add);
  return base;
}

describe('ctx.tools.execute()', () => {
  it('runs an allowed call', async () => {
    const { ctx } = await host();
    expect(await ctx.tools.execute(exec())).toEqual({ content: '3' });
  });

  it('returns Error: <reason> for a deny verdict without running the tool', async () => {
    const { ctx } = await host();
    let ran = false;
    ctx.tools.register({ ...add, name: 'flag', execute: () => ((ran = true), { content: 'ran' }) });
    ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'plan mode: no writes' }));
    expect(await ctx.tools.execute(exec({ name: 'flag' }))).toEqual({
      content: 'Error: plan mode: no writes',
      isError: true,
    });
    expect(ran).toBe(false);
  });

  it('names the available tools for an unknown one, including odd names like __proto__', async () => {
    const { ctx } = await host();
    for (const name of ['nope', '__proto__', 'constructor']) {
      const result = await ctx.tools.execute(exec({ name }));
      expect(result).toEqual({
        content: `Error: unknown tool \`${name}\`; available tools: add`,
        isError: true,
      });
    }
  });

  it('explains arguments that fail the schema, never throwing', async () => {
    const { ctx } = await host();
    const result = await ctx.tools.execute(exec({ arguments: { a: 'one', c: 3 } }));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: invalid arguments for `add`: /);
    expect(result.content).toContain('/a must be number');
    expect(result.content).toContain("must have required property 'b'");
    expect((await ctx.tools.execute(exec({ arguments: 'not json' }))).content).toMatch(/must be object/);
    const proto = JSON.parse('{"a":1,"b":2,"__proto__":{"x":1}}');
    expect((await ctx.tools.execute(exec({ arguments: proto }))).content).toMatch(
      /must NOT have additional properties/,
    );
  });

  it('checks the formats MCP schemas use (uri, date-time) instead of ignoring them', async () => {
    const { ctx } = await host();
    ctx.tools.register({
      name: 'fetch_page',
      description: 'Fetches.',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'date-time' } },
      },
      execute: () => ({ content: 'fetched' }),
    });
    const call = (args: object) => ctx.tools.execute(exec({ name: 'fetch_page', arguments: args }));
    expect(await call({ url: 'https://example.com/a', at: '2026-12-04T19:00:00Z' })).toEqual({
      content: 'fetched',
    });
    expect((await call({ url: 'not a uri' })).content).toContain('/url must match format "uri"');
    expect((await call({ at: 'yesterday' })).content).toContain('/at must match format "date-time"');
  });

  it('turns a throwing tool into an error result', async () => {
    const { ctx } = await host();
    ctx.tools.register({
      ...add,
      name: 'boom',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    expect(await ctx.tools.execute(exec({ name: 'boom' }))).toEqual({
      content: 'Error: disk on fire',
      isError: true,
    });
  });

  it('denies when a pre-execute listener throws (fail closed)', async () => {
    const { ctx } = await host();
    ctx.on('tools/pre-execute', () => {
      throw new Error('policy bug');
    });
    const result = await ctx.tools.execute(exec());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/pre-execute check of `add` failed.*policy bug/);
  });

  it('keeps registrations as effects of the registering plugin, and refuses duplicates', async () => {
    const { ctx } = await host();
    expect(() => ctx.tools.register(add)).toThrow(/already registered/);
    const fiber = await ctx.plugin({
      inject: ['tools'],
      apply: (child) => void child.tools.register({ ...add, name: 'temp' }),
    });
    expect(ctx.tools.names()).toEqual(['add', 'temp']);
    await fiber.dispose();
    expect(ctx.tools.names()).toEqual(['add']);
  });

  it('refuses a schema that does not compile, and re-registers a schema with an $id after dispose', async () => {
    const { ctx } = await host();
    expect(() => ctx.tools.register({ ...add, name: 'broken', parameters: { type: 'nonsense' } })).toThrow(
      /parameters schema of tool `broken` does not compile/,
    );
    const withId = () => ({
      ...add,
      name: 'ided',
      parameters: { $id: 'https://example.com/ided.json', type: 'object' },
    });
    ctx.tools.register(withId())();
    ctx.tools.register(withId());
    expect(ctx.tools.names()).toContain('ided');
  });
});

describe('ask verdicts and ctx.approval', () => {
  async function asking(answer?: (request: unknown) => Promise<ApprovalOutcome>) {
    const base = await host();
    let runs = 0;
    base.ctx.tools.register({ ...add, name: 'guarded', execute: () => ((runs += 1), { content: 'ran' }) });
    base.ctx.on('tools/pre-execute', async (call, next) =>
      call.name === 'guarded' ? { kind: 'ask', reason: 'writes' } : next(),
    );
    if (answer) base.ctx.on('approval/request', async (request) => answer(request));
    const session = base.ctx.sessions.create({ inMemory: true });
    const agent = base.ctx.agents.create({ session, model: scriptedModel([]) });
    await session.append('turn/start', { turn: 1 });
    const run = () => base.ctx.tools.execute(exec({ name: 'guarded', agent }));
    return { ...base, session, run, runs: () => runs };
  }

  it('runs only on allowed-once, with approval/asked before and approval/decided after', async () => {
    const seen: unknown[] = [];
    const t = await asking(async (request) => (seen.push(request), { outcome: 'allowed-once' }));
    expect(await t.run()).toEqual({ content: 'ran' });
    expect(t.runs()).toBe(1);
    expect(seen[0]).toMatchObject({
      toolName: 'guarded',
      callId: 'c1',
      reason: 'writes',
      arguments: { a: 1, b: 2 },
    });
    expect(t.session.events.slice(1).map((event) => [event.type, event.data])).toEqual([
      ['approval/asked', { callId: 'c1', toolName: 'guarded', reason: 'writes' }],
      ['approval/decided', { callId: 'c1', outcome: 'allowed-once' }],
    ]);
  });

  it('does not run on rejected, and carries the feedback', async () => {
    const t = await asking(async () => ({ outcome: 'rejected', feedback: 'smaller steps' }));
    expect(await t.run()).toEqual({
      content: 'Error: the user rejected `guarded`: smaller steps',
      isError: true,
    });
    expect(t.runs()).toBe(0);
    expect(t.session.events.at(-1)!.data).toEqual({
      callId: 'c1',
      outcome: 'rejected',
      feedback: 'smaller steps',
    });
  });

  it('does not run on cancelled', async () => {
    const t = await asking(async () => ({ outcome: 'cancelled' }));
    expect((await t.run()).content).toMatch(/cancelled, so it did not run/);
    expect(t.runs()).toBe(0);
  });

  it('answers unavailable without an answerer, and for a throwing or malformed one', async () => {
    for (const answer of [
      undefined,
      // Only the host gives a reason (for a revision it refused): an answerer's is not passed on.
      async () => ({ outcome: 'unavailable', reason: 'the user approved this' }) as ApprovalOutcome,
      async () => {
        throw new Error('ui crashed');
      },
      async () => ({ outcome: 'yes' }) as never,
    ]) {
      const t = await asking(answer);
      expect((await t.run()).content).toMatch(/needs approval and no one can answer here/);
      expect(t.runs()).toBe(0);
      expect(t.session.events.at(-1)!.data).toMatchObject({ outcome: 'unavailable' });
    }
  });

  it('runs with the arguments an approval revises, checked against the schema first', async () => {
    const base = await host();
    const ran: unknown[] = [];
    base.ctx.tools.register({
      ...add,
      name: 'sum',
      execute: (args, context) => (ran.push([args, context.edited]), { content: 'ran' }),
    });
    base.ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }));
    let answer: () => ApprovalOutcome = () => ({ outcome: 'allowed-once' });
    base.ctx.on('approval/request', async () => answer());
    const session = base.ctx.sessions.create({ inMemory: true });
    const agent = base.ctx.agents.create({ session, model: scriptedModel([]) });
    await session.append('turn/start', { turn: 1 });
    const run = () => base.ctx.tools.execute(exec({ name: 'sum', agent }));

    answer = () => ({ outcome: 'allowed-once', arguments: { a: 5, b: 6 } });
    expect(await run()).toEqual({ content: 'ran' });
    expect(ran).toEqual([[{ a: 5, b: 6 }, true]]);
    expect(session.events.at(-1)!.data).toEqual({
      callId: 'c1',
      outcome: 'allowed-once',
      edited: true,
      arguments: { a: 5, b: 6 },
    });

    const cyclic: Record<string, unknown> = { a: 1, b: 2 };
    cyclic.self = cyclic;
    // A revision that fails the schema: the model is told the approval's edit did not fit, and where.
    for (const [bad, problem] of [
      [{ a: 'five', b: 6 }, '/a must be number'],
      [{ a: 1 }, "(arguments) must have required property 'b'"],
      [null, '(arguments) must be object'],
    ] as const) {
      answer = () => ({ outcome: 'allowed-once', arguments: bad });
      expect(await run()).toEqual({
        content:
          'Error: the approval of `sum` edited its arguments into ones that do not fit its parameters: ' +
          `${problem}, so it did not run`,
        isError: true,
      });
      expect(session.events.at(-1)!.data).toEqual({ callId: 'c1', outcome: 'unavailable' });
    }
    // One that has no JSON form is no answer at all (the approval seam answers unavailable for it).
    answer = () => ({ outcome: 'allowed-once', arguments: cyclic });
    expect((await run()).content).toMatch(/needs approval and no one can answer here/);
    expect(session.events.at(-1)!.data).toEqual({ callId: 'c1', outcome: 'unavailable' });
    expect(ran).toHaveLength(1);
  });

  it('records a rejection’s revision and never runs it; one that fails the schema or cannot be copied is dropped', async () => {
    const base = await host();
    const ran: unknown[] = [];
    const denied: unknown[] = [];
    base.ctx.tools.register({
      ...add,
      name: 'sum',
      execute: (args) => (ran.push(args), { content: 'ran' }),
      onDenied: (outcome, args) => (denied.push([outcome, args]), { content: 'Error: no', isError: true }),
    });
    base.ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }));
    let answer: () => ApprovalOutcome = () => ({ outcome: 'rejected' });
    base.ctx.on('approval/request', async () => answer());
    const session = base.ctx.sessions.create({ inMemory: true });
    const agent = base.ctx.agents.create({ session, model: scriptedModel([]) });
    await session.append('turn/start', { turn: 1 });
    const run = () => base.ctx.tools.execute(exec({ name: 'sum', agent }));

    answer = () => ({ outcome: 'rejected', feedback: 'later', arguments: { a: 5, b: 6 } });
    expect(await run()).toMatchObject({ content: 'Error: no', isError: true });
    expect(session.events.at(-1)!.data).toEqual({
      callId: 'c1',
      outcome: 'rejected',
      feedback: 'later',
      edited: true,
      arguments: { a: 5, b: 6 },
    });
    expect(denied).toEqual([
      [
        { outcome: 'rejected', feedback: 'later', arguments: { a: 5, b: 6 } },
        { a: 5, b: 6 },
      ],
    ]);

    const cyclic: Record<string, unknown> = { a: 1, b: 2 };
    cyclic.self = cyclic;
    for (const bad of [{ a: 'five', b: 6 }, cyclic, null]) {
      denied.length = 0;
      answer = () => ({ outcome: 'rejected', arguments: bad });
      expect(await run()).toMatchObject({ isError: true });
      expect(session.events.at(-1)!.data).toEqual({ callId: 'c1', outcome: 'rejected' });
      expect(denied).toEqual([[{ outcome: 'rejected' }, exec({ name: 'sum', agent }).arguments]]);
    }
    expect(ran).toHaveLength(0);
  });

  it("uses the tool's onDenied result when it has one", async () => {
    const t = await asking(async () => ({ outcome: 'rejected' }));
    t.ctx.tools.register({
      ...add,
      name: 'polite',
      onDenied: (outcome) => ({ content: `Error: not now (${outcome.outcome})`, isError: true }),
    });
    t.ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }), { prepend: true });
    expect(await t.ctx.tools.execute(exec({ name: 'polite' }))).toEqual({
      content: 'Error: not now (rejected)',
      isError: true,
    });
  });

  it('answers cancelled when the call is aborted while the question is open', async () => {
    const { ctx } = await setup({ builtinTools: false });
    const controller = new AbortController();
    ctx.on('approval/request', () => new Promise(() => controller.abort()));
    expect(await ctx.approval.request({ toolName: 'x', callId: 'c', signal: controller.signal })).toEqual({
      outcome: 'cancelled',
    });
  });
});

describe('ctx.tools.guard(): a ceiling over the pre-execute waterfall', () => {
  const verdicts = {
    allow: { kind: 'allow' },
    ask: { kind: 'ask', reason: 'guard asks' },
    deny: { kind: 'deny', reason: 'guard denies' },
  } as const;

  it('combines as the most restrictive, keeping the guard reason on a tie, in either listener position', async () => {
    const cases: [keyof typeof verdicts, PreExecuteResult, PreExecuteResult][] = [
      ['allow', { kind: 'ask', reason: 'listener asks' }, { kind: 'ask', reason: 'listener asks' }],
      ['ask', { kind: 'allow' }, verdicts.ask],
      ['ask', { kind: 'ask', reason: 'listener asks' }, verdicts.ask],
      ['ask', { kind: 'deny', reason: 'listener denies' }, { kind: 'deny', reason: 'listener denies' }],
      ['deny', { kind: 'allow' }, verdicts.deny],
    ];
    for (const prepend of [true, false]) {
      for (const [guard, listener, expected] of cases) {
        const { ctx } = await host();
        ctx.on('tools/pre-execute', async () => listener, { prepend });
        ctx.tools.guard(() => verdicts[guard]);
        expect(await ctx.tools.judge(exec()), `${guard} + ${listener.kind}`).toEqual(expected);
      }
    }
  });

  it('skips the waterfall when a guard denies, and never runs the tool', async () => {
    const { ctx } = await host();
    let asked = 0;
    ctx.on('tools/pre-execute', async () => ((asked += 1), { kind: 'allow' }), { prepend: true });
    ctx.tools.guard(() => verdicts.deny);
    expect(await ctx.tools.execute(exec())).toEqual({ content: 'Error: guard denies', isError: true });
    expect(asked).toBe(0);
  });

  it('denies when a guard throws, is async or answers junk (fail closed)', async () => {
    const guards = [
      () => {
        throw new Error('policy bug');
      },
      (async () => ({ kind: 'allow' })) as never,
      (() => ({ kind: 'maybe' })) as never,
    ];
    for (const guard of guards) {
      const { ctx } = await host();
      ctx.tools.guard(guard);
      const result = await ctx.tools.execute(exec());
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/the check of `add` (failed|gave no verdict)/);
    }
  });

  it('is an effect of the registering plugin, and tools/verdict reports the combined verdict', async () => {
    const { ctx } = await host();
    const seen: string[] = [];
    ctx.on('tools/verdict', (call, verdict) => void seen.push(`${call.name}:${verdict.kind}`));
    const fiber = await ctx.plugin({
      name: 'strict',
      inject: ['tools'],
      apply: (inner: Context) => void inner.tools.guard(() => verdicts.deny),
    });
    expect((await ctx.tools.execute(exec())).isError).toBe(true);
    await fiber.dispose();
    expect(await ctx.tools.execute(exec())).toEqual({ content: '3' });
    expect(seen).toEqual(['add:deny', 'add:allow']);
  });

  it('keeps one function registered twice until both registrations are disposed', async () => {
    const { ctx } = await host();
    const deny = () => verdicts.deny;
    const plugin = (name: string) => ({
      name,
      inject: ['tools'],
      apply: (inner: Context) => void inner.tools.guard(deny),
    });
    const first = await ctx.plugin(plugin('first'));
    const second = await ctx.plugin(plugin('second'));
    await first.dispose();
    expect((await ctx.tools.execute(exec())).isError).toBe(true);
    await second.dispose();
    expect(await ctx.tools.execute(exec())).toEqual({ content: '3' });
  });
});

describe('ctx.tools.execute(): the verdict comes before the arguments, and its rule goes with the result', () => {
  const RULE = { selector: 'add', file: '/p/review.yaml', line: 4, column: 3 };

  /** A host with one guard and an in-memory session whose turn is open. */
  async function guarded(verdict: PreExecuteResult, answer?: ApprovalOutcome) {
    const base = await host();
    let runs = 0;
    base.ctx.tools.register({ ...add, name: 'counted', execute: () => ((runs += 1), { content: 'ran' }) });
    base.ctx.tools.guard(() => verdict);
    const asked: unknown[] = [];
    if (answer) base.ctx.on('approval/request', async (request) => (asked.push(request), answer));
    const session = base.ctx.sessions.create({ inMemory: true });
    const agent = base.ctx.agents.create({ session, model: scriptedModel([]) });
    await session.append('turn/start', { turn: 1 });
    const run = (args: unknown = { a: 1, b: 2 }) =>
      base.ctx.tools.execute(exec({ name: 'counted', arguments: args, agent }));
    return { ...base, session, run, asked, runs: () => runs };
  }

  it('gives a denied call the deny reason, never its schema errors, with the rule as data', async () => {
    const t = await guarded({ kind: 'deny', reason: 'no adding here', rule: RULE });
    for (const args of [{ a: 'x' }, {}, null, 'text']) {
      expect(await t.run(args)).toEqual({
        content: 'Error: no adding here',
        isError: true,
        data: { rule: RULE },
      });
    }
    expect(t.runs()).toBe(0);
  });

  it('validates an ask before asking: an invalid call is never put to the user', async () => {
    const t = await guarded({ kind: 'ask', reason: 'adds', rule: RULE }, { outcome: 'allowed-once' });
    expect((await t.run({ a: 'x' })).content).toMatch(/^Error: invalid arguments for `counted`/);
    expect(t.asked).toEqual([]);
    expect(t.session.events.map((event) => event.type)).toEqual(['turn/start']);
  });

  it('validates an allowed call before it runs', async () => {
    const t = await guarded({ kind: 'allow' });
    expect(await t.run({ a: 1 })).toEqual({
      content: "Error: invalid arguments for `counted`: (arguments) must have required property 'b'",
      isError: true,
    });
    expect(t.runs()).toBe(0);
  });

  it('puts the asking rule into approval/asked, the approval request and the result, whatever the answer', async () => {
    for (const answer of [{ outcome: 'allowed-once' }, { outcome: 'rejected' }] as const) {
      const t = await guarded({ kind: 'ask', reason: 'adds', rule: RULE }, answer);
      const result = await t.run();
      expect(result.data).toEqual({ rule: RULE });
      expect(result.content).toBe(
        answer.outcome === 'allowed-once' ? 'ran' : 'Error: the user rejected `counted`',
      );
      expect(t.asked).toEqual([expect.objectContaining({ reason: 'adds', rule: RULE })]);
      expect(t.session.events[1]).toMatchObject({
        type: 'approval/asked',
        data: { callId: 'c1', toolName: 'counted', reason: 'adds', rule: RULE },
      });
    }
  });

  it('adds no data where no rule decided: an allow, or a verdict without a rule', async () => {
    expect(await (await guarded({ kind: 'allow' })).run()).toEqual({ content: 'ran' });
    expect(await (await guarded({ kind: 'deny', reason: 'no' })).run()).toEqual({
      content: 'Error: no',
      isError: true,
    });
  });

  it('drops a malformed rule and keeps the verdict (a rule is a label, never trusted as one)', async () => {
    const junk = [
      { selector: 5, file: null, line: null, column: null },
      { selector: 'x', file: 7, line: null, column: null },
      { selector: 'x', file: 'f', line: -1, column: 1 },
      { selector: 'x', file: 'f', line: 1.5, column: 1 },
      'default',
      null,
    ];
    for (const rule of junk) {
      const t = await guarded({ kind: 'deny', reason: 'no', rule } as never);
      expect(await t.run()).toEqual({ content: 'Error: no', isError: true });
    }
    // Engine rules have no file: null positions pass, and so do absent ones (taken as null).
    const bare = await guarded({ kind: 'deny', reason: 'no', rule: { selector: '(default mode)' } } as never);
    expect((await bare.run()).data).toEqual({
      rule: { selector: '(default mode)', file: null, line: null, column: null },
    });
  });
});
