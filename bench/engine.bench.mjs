// The mode engine: what the plugin costs per step (default and plan mode) against the same step without it, what
// a do-nothing hook on each seam it uses costs (the host's dispatch alone), and the mode fold per read on a
// 100,000-event session (the incremental cursor against a full refold).
// Imports dist/: `npm run build` first (`npm run bench` does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModeFoldCache } from '../dist/engine/index.js';
import { consume, interleave, ratioResult } from './lib.mjs';
import { deployment, nullHooks, stepper } from './steps.mjs';

const BENCH = 'engine';

/**
 * The step pairs, timed in this process: per pair, each contender's time per step in every block.
 * The plugin's default-mode cost is a few percent of a step, under this machine's noise: the speed of a shared
 * machine wanders by tens of percent over milliseconds to seconds, so neighbouring blocks of 2 ms are compared,
 * hundreds of them, their ratio taken per run of 10 blocks.
 */
async function stepSamples(quick) {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-engine-'));
  try {
    const bare = await deployment(workspace, false);
    const moded = await deployment(workspace, true);
    const hooked = await deployment(workspace, false);
    nullHooks(hooked);
    const options = { blocks: quick ? 3 : 500, blockMs: quick ? 5 : 2, warmups: quick ? 2 : 100 };
    // Every contender warmed before either pair is timed, so the first pair does not pay for the JIT's start.
    const warming = [stepper('none', bare), stepper('default', moded), stepper('plan', moded, 'plan')];
    for (const warm of [...warming, stepper('hooks', hooked)]) await warm.run(quick ? 20 : 20_000);
    // Each pair on its own: in one interleave of three, the default contender would always run right after the plan
    // one in every other round and pay for its garbage and its cache footprint.
    const byDefault = await interleave([stepper('none', bare), stepper('default', moded)], options);
    const byPlan = await interleave([stepper('none', bare), stepper('plan', moded, 'plan')], options);
    const byHooks = await interleave([stepper('none', bare), stepper('hooks', hooked)], options);
    return { byDefault, byPlan, byHooks };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * The step pairs in three processes, their blocks pooled: what the JIT makes of the two deployments differs from
 * one process to the next by a few percent (one process alone moved the figure by ±10% between runs).
 */
function pooledStepSamples() {
  const pooled = {
    byDefault: { none: [], default: [] },
    byPlan: { none: [], plan: [] },
    byHooks: { none: [], hooks: [] },
  };
  for (let p = 0; p < 3; p++) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--step-samples'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (child.status !== 0)
      throw new Error(`bench engine: the step process exited ${child.status}\n${child.stderr}`);
    const samples = JSON.parse(child.stdout);
    for (const pair of Object.keys(pooled))
      for (const [name, list] of Object.entries(samples[pair])) pooled[pair][name].push(...list);
  }
  return pooled;
}

export default async function run({ quick }) {
  const blocks = quick ? 3 : 15;
  const out = [];
  {
    const { byDefault, byPlan, byHooks } = quick ? await stepSamples(true) : pooledStepSamples();
    const us = { unit: 'µs', scale: 1e-3, group: quick ? 1 : 10 };
    out.push(
      ratioResult(BENCH, 'plugin-overhead-default', byDefault.default, byDefault.none, {
        ...us,
        goal: { ratio: 1.1 },
      }),
      ratioResult(BENCH, 'plugin-overhead-plan', byPlan.plan, byPlan.none, { ...us, goal: { ratio: 1.5 } }),
      // The host's dispatch to one do-nothing hook per seam the engine uses: the floor under the default figure.
      ratioResult(BENCH, 'null-hooks-overhead', byHooks.hooks, byHooks.none, us),
    );
  }
  {
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
      { blocks, blockMs: quick ? 2 : 10 },
    );
    out.push(ratioResult(BENCH, 'fold-read-100k-vs-refold', fold.incremental, fold.refold));
  }
  return out;
}

// Run as a script with --step-samples: one process of step pairs, its samples as JSON on stdout.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--step-samples'))
  console.log(JSON.stringify(await stepSamples(false)));
