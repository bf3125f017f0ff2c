/**
 * Item 4, load: 1,000 concurrent sessions in one process on the real loop and engine (in-memory journals in the
 * CI run, JSONL files in a temp folder in the long run), each running several turns with user flips between and
 * inside turns, read-only and writing probe calls, and plan exits approved or rejected by a seeded answerer. At
 * the end every session's cached fold (`ctx.modes.get`) equals a fresh `foldMode` of its log, and no probe ran
 * where its landed mode denies it. Peak memory (sampled `process.memoryUsage()`) goes into the report; the test
 * sets no threshold on it.
 */
import { describe, expect, it } from 'vitest';
import { foldMode } from '../../src/engine/index.js';
import { scriptedModel, type ApprovalOutcome, type ScriptEntry, type Tool } from '../../src/host/index.js';
import { setup } from '../engine/setup.js';
import { LONG, measured, rng, scale, seedOf } from './config.js';

const SESSIONS = 1_000;

describe('load: 1,000 concurrent sessions', () => {
  it('cached folds agree with fresh folds of every log, and the gate held in every session', async () => {
    const seed = seedOf('load: 1000 sessions');
    const turns = scale(2, 6);
    await measured('load', `load: ${SESSIONS} concurrent sessions`, seed, async () => {
      const random = rng(seed);
      const { ctx } = await setup();
      const violations: string[] = [];
      const runs: { landed: string; tool: string }[] = [];
      const probe = (name: string, readOnly: boolean): Tool => ({
        name,
        description: name,
        parameters: { type: 'object' },
        ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
        execute: (_a, context) => {
          const landed = ctx.modes.get(context.agent!).current;
          runs.push({ landed, tool: name });
          if (landed !== 'default' && !readOnly) violations.push(`${name} ran in ${landed}`);
          return { content: 'ran' };
        },
      });
      ctx.tools.register(probe('look', true));
      ctx.tools.register(probe('change', false));
      ctx.on('approval/request', async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return (
          random() < 0.5 ? { outcome: 'allowed-once' } : { outcome: 'rejected', feedback: 'no' }
        ) as ApprovalOutcome;
      });
      let peakRss = 0;
      let peakHeap = 0;
      const sample = () => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      };
      const timer = setInterval(sample, 20);
      const baseline = process.memoryUsage();
      const agents = Array.from({ length: SESSIONS }, (_, i) => {
        const script: ScriptEntry[] = [];
        for (let t = 0; t < turns; t++) {
          script.push({ text: 'look', tool_calls: [{ name: 'look' }, { name: 'change' }] });
          script.push({
            text: 'plan',
            tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# P\nx' } }, { name: 'change' }],
          });
          script.push({ text: 'work', tool_calls: [{ name: 'change' }] });
          script.push({ text: 'done' });
        }
        const session = ctx.sessions.create(LONG ? { id: `load-${i}` } : { inMemory: true });
        return ctx.agents.create({
          session,
          model: scriptedModel(script, { record: false }),
          options: { mode: 'plan' },
        });
      });
      let flips = 0;
      // Flips from outside the turns, at random moments while everything runs.
      const flipper = setInterval(() => {
        for (let k = 0; k < 20; k++) {
          const agent = agents[Math.floor(random() * agents.length)]!;
          ctx.modes.set(agent, random() < 0.7 ? 'plan' : 'default');
          flips++;
        }
      }, 1);
      const started = performance.now();
      await Promise.all(
        agents.map(async (agent) => {
          for (let t = 0; t < turns; t++) {
            await agent.prompt(`task ${t}`);
            if (random() < 0.5) (ctx.modes.set(agent, 'plan'), flips++);
          }
        }),
      );
      const elapsed = performance.now() - started;
      clearInterval(flipper);
      clearInterval(timer);
      sample();
      let events = 0;
      let disagreements = 0;
      for (const agent of agents) {
        events += agent.session.events.length;
        if (ctx.modes.get(agent).current !== foldMode(agent.session.events)) disagreements++;
        agent.session.close?.();
      }
      expect(disagreements).toBe(0);
      expect(violations).toEqual([]);
      expect(runs.some((r) => r.tool === 'change')).toBe(true); // approved exits did open the full toolset
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
      const notes =
        `${SESSIONS} sessions (${LONG ? 'JSONL files' : 'in memory'}) × ${turns} turns, ${events} events, ` +
        `${flips} user flips, ${runs.length} tool runs in ${(elapsed / 1000).toFixed(1)} s; ` +
        `peak RSS ${mb(peakRss)}, peak heap ${mb(peakHeap)} (heap before ${mb(baseline.heapUsed)})`;
      console.log(notes);
      return { runs: SESSIONS, violations: disagreements + violations.length, notes };
    });
  }, 600_000);
});
