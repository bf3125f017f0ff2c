// The mode engine: what the plugin costs per step (default and plan mode) against the same step without it, and
// the mode fold per read on a 100,000-event session (the incremental cursor against a full refold).
// Imports dist/: `npm run build` first (`npm run bench` does).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModeFoldCache } from '../dist/engine/index.js';
import { consume, interleave, ratioResult } from './lib.mjs';
import { deployment, stepper } from './steps.mjs';

const BENCH = 'engine';

export default async function run({ quick }) {
  // The plugin's default-mode cost is a few percent of a step, under this machine's noise: the speed of a shared
  // machine wanders by tens of percent over milliseconds to seconds, so the figures compare neighbouring blocks of
  // 2 ms, a thousand of them (a median over few long blocks moved by ±10% between runs; over these, by ±1%).
  const blocks = quick ? 3 : 1001;
  const blockMs = quick ? 5 : 2;
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-engine-'));
  const out = [];
  try {
    const bare = await deployment(workspace, false);
    const moded = await deployment(workspace, true);
    // Each pair on its own: in one interleave of three, the default contender would always run right after the plan
    // one in every other round and pay for its garbage and its cache footprint.
    const options = { blocks, blockMs, warmups: quick ? 2 : 100 };
    // Every contender warmed before either pair is timed, so the first pair does not pay for the JIT's start.
    for (const warm of [stepper('none', bare), stepper('default', moded), stepper('plan', moded, 'plan')])
      await warm.run(quick ? 20 : 20_000);
    const byDefault = await interleave([stepper('none', bare), stepper('default', moded)], options);
    const byPlan = await interleave([stepper('none', bare), stepper('plan', moded, 'plan')], options);
    const us = { unit: 'µs', scale: 1e-3, group: quick ? 1 : 10 };
    out.push(
      ratioResult(BENCH, 'plugin-overhead-default', byDefault.default, byDefault.none, {
        ...us,
        goal: { ratio: 1.02 },
      }),
      ratioResult(BENCH, 'plugin-overhead-plan', byPlan.plan, byPlan.none, us),
    );

    // The fold on a 100,000-event session: a mode/set near the start, request headers throughout.
    const events = [];
    for (let i = 0; i < (quick ? 5_000 : 100_000); i++) {
      const type = i === 1 ? 'mode/set' : i % 50 === 0 ? 'request/header-delta' : 'user/message';
      events.push({ seq: i + 1, type, data: type === 'mode/set' ? { mode: 'plan' } : {}, time: '' });
    }
    const session = { events };
    // The refold reads a copy that does not grow with the incremental contender's events.
    const fixed = { events: events.slice() };
    const cache = new ModeFoldCache();
    cache.read(session);
    const tick = { seq: 0, type: 'user/message', data: {}, time: '' };
    const fold = await interleave(
      [
        {
          name: 'incremental',
          run(n) {
            for (let i = 0; i < n; i++) {
              events.push(tick);
              consume(cache.read(session));
            }
          },
        },
        {
          name: 'refold',
          scale: 1e-4,
          run(n) {
            for (let i = 0; i < n; i++) consume(new ModeFoldCache().read(fixed));
          },
        },
      ],
      { blocks: quick ? 3 : 15, blockMs: quick ? 2 : 10 },
    );
    out.push(ratioResult(BENCH, 'fold-read-100k-vs-refold', fold.incremental, fold.refold));
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  return out;
}
