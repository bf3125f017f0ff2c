/**
 * Item 1, the loop: random interleavings of user flips (before a turn, at a tool call, at a step end, while an
 * approval is waiting), approvals (allowed-once, rejected with feedback, cancelled, unavailable, a throwing
 * answerer, a malformed answer), cancellations (at a random event of a turn, or while an approval waits) and tool
 * calls (read-only, writing, asking, unknown, bad arguments, `exit_plan_mode`), and restarts (the log resumed
 * from disk by a new agent, with or without an explicit mode option) over the REAL loop with the
 * scripted model and the real engine. The tools are instrumented: each run records the landed mode at that
 * moment. Checks: no tool runs where the landed mode denies it; an asked tool runs only after its
 * `approval/decided allowed-once`; every `mode/set` that leaves plan is either a user flip requested since the
 * previous landing or an approved `exit_plan_mode` of the same span.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT_PLAN_MODE, foldMode } from '../../src/engine/index.js';
import { scriptedModel, type ApprovalOutcome, type SessionEvent, type Tool } from '../../src/host/index.js';
import { mode, play, turns as turnsOf } from '../engine/interleavings.js';
import { setup } from '../engine/setup.js';
import { check } from './config.js';
import { unapprovedExits } from './invariants.js';

const TOOLS = ['probe_ro', 'probe_rw', 'probe_ask', EXIT_PLAN_MODE, 'no_such_tool', 'bad_args'] as const;
type ToolName = (typeof TOOLS)[number];
const ANSWERS = [
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
  'throw',
  'garbage',
  'abort',
] as const;

/** What each mode decides for the probes (plan: the built-in policy; review: the inline config below). */
function decision(mode: string, tool: string): 'allow' | 'ask' | 'deny' {
  if (mode === 'default') return tool === EXIT_PLAN_MODE ? 'deny' : 'allow';
  if (mode === 'plan') return tool === 'probe_ro' ? 'allow' : tool === EXIT_PLAN_MODE ? 'ask' : 'deny';
  if (mode === 'review')
    return tool === 'probe_ro' ? 'allow' : tool === 'probe_ask' || tool === EXIT_PLAN_MODE ? 'ask' : 'deny';
  return 'deny';
}

const program = fc.record({
  seed: fc.constantFrom<string>('plan', 'default'),
  turns: turnsOf(TOOLS, {
    cancelAt: fc.option(fc.nat(30), { nil: undefined }),
    // Before the turn: no restart (undefined); a restart that resumes the log from disk with a new agent, with no
    // mode option (null: the log decides) or an explicit one (it wins over the log).
    restart: fc.option(fc.option(mode, { nil: null }), { nil: undefined, freq: 3 }),
  }),
  answers: fc.array(
    fc.record({ outcome: fc.constantFrom(...ANSWERS), flip: fc.option(mode, { nil: undefined }) }),
    { maxLength: 8 },
  ),
});

describe('fuzz: random interleavings over the real loop', () => {
  it('no denied tool runs, asks run only when allowed once, every exit from plan is approved or user-made', async () => {
    await check(
      'fuzz',
      'loop: gate and exits under random flips, approvals, cancellations',
      fc.asyncProperty(program, async ({ seed, turns, answers }) => {
        const { ctx } = await setup({
          config: {
            modes: {
              review: {
                tools: { probe_ro: 'allow', probe_ask: 'ask', exit_plan_mode: 'ask' },
                default: 'deny',
              },
            },
          },
        });
        // Every run of every tool, with the landed mode the engine reports at that moment.
        const runs: { callId: string; tool: string; landed: string }[] = [];
        let agentRef: { session: { events: readonly SessionEvent[] } } | undefined;
        const probe = (name: string, annotations?: Tool['annotations']): Tool => ({
          name,
          description: name,
          parameters: name === 'bad_args' ? { type: 'object', required: ['x'] } : { type: 'object' },
          ...(annotations ? { annotations } : {}),
          execute: (_args, context) => {
            runs.push({ callId: context.callId, tool: name, landed: ctx.modes.get(context.agent!).current });
            return { content: 'ran' };
          },
        });
        ctx.tools.register(probe('probe_ro', { readOnlyHint: true }));
        ctx.tools.register(probe('probe_rw'));
        ctx.tools.register(probe('probe_ask'));
        ctx.tools.register(probe('bad_args'));

        const { script, callFlips, stepFlips } = play(turns, (tool) =>
          tool === EXIT_PLAN_MODE ? { plan: '# P\ndo it' } : {},
        );
        // On disk, so a restart can resume it; one model across restarts, so the script goes on where it was.
        const model = scriptedModel(script);
        let agent = ctx.agents.create({
          session: ctx.sessions.create({ id: 'loop' }),
          model,
          options: seed === 'plan' ? { mode: 'plan' } : {},
        });
        agentRef = agent;
        // User flips, by the log position they were requested at.
        const flips: { at: number; target: string }[] = [];
        const flip = (target: string) => {
          flips.push({ at: agent.session.events.length, target });
          ctx.modes.set(agent, target);
        };
        let controller = new AbortController();
        const queue = [...answers];
        ctx.on('approval/request', async (request) => {
          const answer = queue.shift() ?? { outcome: 'rejected' as const, flip: undefined };
          if (answer.flip) flip(answer.flip);
          switch (answer.outcome) {
            case 'throw':
              throw new Error('answerer crashed');
            case 'garbage':
              return { outcome: 'yes please' } as unknown as ApprovalOutcome;
            case 'abort':
              controller.abort();
              return new Promise<ApprovalOutcome>(() => {}); // never answers: the abort must win
            case 'rejected':
              return { outcome: 'rejected', feedback: 'no' };
            default:
              return { outcome: answer.outcome } as ApprovalOutcome;
          }
        });
        let calls = 0;
        let stepEnds = 0;
        let cancelAt: number | undefined;
        let turnEvents = 0;
        ctx.on('session/event', async (_session, event, next) => {
          await next();
          if (++turnEvents === cancelAt) controller.abort();
          if (event.type === 'tool/call') {
            const target = callFlips[calls++];
            if (target) flip(target);
          } else if (event.type === 'step/end') {
            for (const target of stepFlips[stepEnds++] ?? []) flip(target);
          }
        });
        for (const t of turns) {
          if (t.restart !== undefined) {
            agent.session.close?.();
            const session = await ctx.sessions.resume('loop');
            // A fresh session object: its mode comes from the log alone.
            expect(ctx.modes.get({ session }).current).toBe(foldMode(session.events));
            // An explicit mode option is the user's choice, like a flip requested now.
            if (t.restart !== null) flips.push({ at: session.events.length, target: t.restart });
            agent = ctx.agents.create({
              session,
              model,
              options: t.restart !== null ? { mode: t.restart } : {},
            });
            agentRef = agent;
          }
          for (const target of t.before) flip(target);
          controller = new AbortController();
          cancelAt = t.cancelAt;
          turnEvents = 0;
          await agent.prompt('go', { signal: controller.signal });
        }
        agent.session.close?.();

        const events = agentRef.session.events;
        const index = new Map<string, number>();
        events.forEach((e, i) => {
          if (e.type === 'tool/call') index.set((e.data as { callId: string }).callId, i);
        });
        const decided = (callId: string) =>
          events.find(
            (e) => e.type === 'approval/decided' && (e.data as { callId: string }).callId === callId,
          );
        // (1) the gate: every run happened in a mode that does not deny it, and matches the log's fold.
        for (const run of runs) {
          const i = index.get(run.callId)!;
          expect(foldMode(events, i), run.callId).toBe(run.landed);
          const d = decision(run.landed, run.tool);
          expect(d, `${run.tool} ran in ${run.landed}`).not.toBe('deny');
          if (d === 'ask')
            expect((decided(run.callId)?.data as { outcome?: string })?.outcome).toBe('allowed-once');
        }
        // Conversely, the calls the landed mode allows outright did run (the gate is not just closed).
        for (const [callId, i] of index) {
          const data = events[i]!.data as { name: ToolName };
          const landed = foldMode(events, i);
          const result = events.find(
            (e) => e.type === 'tool/result' && (e.data as { callId: string }).callId === callId,
          );
          const cancelled = (result?.data as { content?: string })?.content?.includes('cancelled');
          if (data.name.startsWith('probe') && decision(landed, data.name) === 'allow' && !cancelled) {
            expect(
              runs.some((r) => r.callId === callId),
              `${data.name} allowed in ${landed}`,
            ).toBe(true);
          }
        }
        // (2) every exit from plan is a user flip or an approved exit; (3) every successful exit was approved.
        expect(unapprovedExits(events, flips)).toEqual([]);
      }),
      [15, 3_000],
      'seeded plan or default; 1–4 turns of ≤3 steps of 1–3 calls; flips at 4 kinds of points; 7 answer kinds; cancels; restarts (resume from disk, new agent, with or without a mode option)',
    );
  });
});
