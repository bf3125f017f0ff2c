/**
 * Invariants 4, 5 and 6 as properties (fast-check): over random interleavings of user flips (idle, mid-step at a
 * `tool/call`, at a `step/end`), boundaries, tool calls and exit approvals, (a) the gate never runs a tool that the
 * landed mode denies, and runs every tool it allows; (b) `mode/set` and its notice appear exactly where the landing
 * and narration rules say, computed by an independent reference model of those rules. Real: cordis Context, the
 * host (loop, tool runtime, approval seam), the scripted model; the probe tools are real registered tools.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApprovalOutcome, SessionEvent, Tool } from '../../src/host/index.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE, foldMode, narration } from '../../src/engine/index.js';
import { play, turns as turnsOf } from './interleavings.js';
import { agentOf, setup } from './setup.js';

const TOOLS = ['probe_ro', 'probe_rw', EXIT_PLAN_MODE] as const;
type ToolName = (typeof TOOLS)[number];

/** A fixed seed: the same runs every time (the long random runs are the reliability suite's loop fuzz). */
const SEED = 20261130;

const program = fc.record({
  turns: turnsOf(TOOLS),
  answers: fc.array(fc.constantFrom<ApprovalOutcome['outcome']>('allowed-once', 'rejected', 'cancelled'), {
    maxLength: 6,
  }),
});

/** What the landed mode allows without asking (the probes' policies: plan by effects, review by name). */
function allows(landed: string, tool: ToolName): boolean {
  if (landed === DEFAULT_MODE) return tool !== EXIT_PLAN_MODE;
  return tool === 'probe_ro';
}

/** The reference model of invariants 5 and 6: the mode/set and notices expected, with their positions. */
function expectedFlips(
  events: readonly SessionEvent[],
  sets: ReadonlyMap<number, string[]>,
): [number, string, string][] {
  const out: [number, string, string][] = [];
  let folded = DEFAULT_MODE;
  let header: string | undefined;
  let pending: { mode: string; narrate: boolean } | undefined;
  const apply = (position: number) => {
    for (const target of sets.get(position) ?? []) {
      if (target !== (pending?.mode ?? folded)) pending = { mode: target, narrate: true };
    }
  };
  apply(0);
  for (let j = 0; j < events.length; j++) {
    const event = events[j]!;
    const data = event.data as { mode?: string; name?: string; isError?: boolean };
    if (event.type === 'mode/set') folded = data.mode!;
    if (event.type === 'request/header' || event.type === 'request/header-delta') header = folded;
    if (event.type === 'tool/result' && data.name === EXIT_PLAN_MODE && !data.isError) {
      pending = { mode: DEFAULT_MODE, narrate: false };
    }
    apply(j + 1);
    if ((event.type === 'turn/start' || event.type === 'step/end') && pending) {
      if (pending.mode !== folded) {
        out.push([j + 1, 'mode/set', pending.mode]);
        if (pending.narrate && header !== undefined && header !== pending.mode) {
          out.push([j + 2, 'context/message', narration(pending.mode)]);
        }
      }
      pending = undefined;
    }
  }
  return out;
}

describe('invariants 4, 5 and 6 as properties over random interleavings', () => {
  it('the gate never runs a tool the landed mode denies, and flips land and narrate exactly as the rules say', async () => {
    await fc.assert(
      fc.asyncProperty(program, async ({ turns, answers }) => {
        const { ctx } = await setup({
          config: { modes: { review: { tools: { probe_ro: 'allow' }, default: 'deny' } } },
        });
        const ran = new Set<string>();
        const probe = (name: string, readOnly: boolean): Tool => ({
          name,
          description: name,
          parameters: { type: 'object' },
          ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
          execute: (_args, context) => {
            ran.add(context.callId);
            return { content: 'ran' };
          },
        });
        ctx.tools.register(probe('probe_ro', true));
        ctx.tools.register(probe('probe_rw', false));
        const queue = [...answers];
        const answered = new Map<string, ApprovalOutcome['outcome']>();
        ctx.on('approval/request', async (request) => {
          const outcome = queue.shift() ?? 'rejected';
          answered.set(request.callId, outcome);
          return { outcome } as ApprovalOutcome;
        });

        const { script, callFlips, stepFlips } = play(turns, () => ({ plan: '# P' }));
        const { agent } = agentOf(ctx, script);
        const sets = new Map<number, string[]>();
        const flip = (target: string) => {
          const position = agent.session.events.length;
          sets.set(position, [...(sets.get(position) ?? []), target]);
          ctx.modes.set(agent, target);
        };
        let calls = 0;
        let stepEnds = 0;
        ctx.on('session/event', async (_session, event, next) => {
          await next();
          if (event.type === 'tool/call') {
            const target = callFlips[calls++];
            if (target) flip(target);
          } else if (event.type === 'step/end') {
            for (const target of stepFlips[stepEnds++] ?? []) flip(target);
          }
        });
        for (const t of turns) {
          for (const target of t.before) flip(target);
          await agent.prompt('go');
        }

        const events = agent.session.events;
        events.forEach((event, j) => {
          if (event.type !== 'tool/call') return;
          const { callId, name } = event.data as { callId: string; name: ToolName };
          const landed = foldMode(events, j);
          const result = events.find(
            (e) => e.type === 'tool/result' && (e.data as { callId: string }).callId === callId,
          )!;
          const succeeded = !(result.data as { isError: boolean }).isError;
          if (name === EXIT_PLAN_MODE) {
            expect(succeeded).toBe(landed === 'plan' && answered.get(callId) === 'allowed-once');
          } else {
            expect(ran.has(callId), `${name} in ${landed}`).toBe(allows(landed, name));
            expect(succeeded).toBe(allows(landed, name));
          }
        });
        const actual = events
          .map(
            (event, j) =>
              [
                j,
                event.type,
                (event.data as { mode?: string; text?: string }).mode ??
                  (event.data as { text?: string }).text,
              ] as const,
          )
          .filter(([, type]) => type === 'mode/set' || type === 'context/message');
        expect(actual).toEqual(expectedFlips(events, sets));
      }),
      { numRuns: 30, seed: SEED },
    );
  });
});
