// The mode engine: per-step overhead of the plugin on the real loop (no plugin vs the plugin with agents in the
// default mode vs in plan mode, as ratios to the no-plugin baseline measured in the same run), and the fold's cost
// per read on a 100,000-event session (the incremental cursor vs a full refold).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from 'cordis';
import { applyHost, scriptedModel } from '../dist/host/index.js';
import { foldMode, ModeFoldCache, ModePlugin } from '../dist/engine/index.js';
import { formatNs, report, timePerCall } from './lib.mjs';

const STEPS = 20; // tool steps per turn (plus the final answer)
const TURNS = 40; // turns per measured round (each on a fresh session, so transcripts stay small)
const ROUNDS = 7;

/** A no-op read-only tool: plan allows it by its effects rule, so every configuration runs it. */
const noop = {
  name: 'noop',
  description: 'Does nothing.',
  parameters: { type: 'object', additionalProperties: false },
  annotations: { readOnlyHint: true },
  execute: () => ({ content: 'ok' }),
};

async function deployment(workspace, plugin) {
  const ctx = new Context();
  await applyHost(ctx, { workspace });
  ctx.tools.register(noop);
  if (plugin) await ctx.plugin(ModePlugin, {});
  return ctx;
}

/** Milliseconds per step over TURNS turns of STEPS tool steps + 1 answer, each turn on a fresh agent. */
async function msPerStep(ctx, mode) {
  const script = [];
  for (let i = 0; i < STEPS; i++) script.push({ text: 's', tool_calls: [{ name: 'noop', arguments: {} }] });
  script.push({ text: 'done' });
  const start = process.hrtime.bigint();
  for (let t = 0; t < TURNS; t++) {
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model: scriptedModel(script),
      options: { maxSteps: STEPS + 1, ...(mode ? { mode } : {}) },
    });
    const outcome = await agent.prompt('go');
    if (outcome.reason !== 'done') throw new Error(`bench turn ended ${outcome.reason}`);
  }
  return Number(process.hrtime.bigint() - start) / 1e6 / (TURNS * (STEPS + 1));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function run() {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-engine-'));
  try {
    const bare = await deployment(workspace, false);
    const moded = await deployment(workspace, true);
    const samples = { none: [], default: [], plan: [] };
    await msPerStep(bare);
    await msPerStep(moded, 'plan');
    // Interleaved rounds, so drift in the machine's speed hits every configuration alike.
    for (let r = 0; r < ROUNDS; r++) {
      samples.none.push(await msPerStep(bare));
      samples.default.push(await msPerStep(moded));
      samples.plan.push(await msPerStep(moded, 'plan'));
    }
    const none = median(samples.none);
    const baseline = { label: 'no plugin', valueOf: () => none };
    const row = (name, ms) =>
      report(
        name,
        { text: formatNs(ms * 1e6), valueOf: () => ms },
        name.startsWith('no plugin') ? {} : { baseline },
      );
    console.log(
      `  per step (one tool call, assembly, gate, logging; median of ${ROUNDS} rounds of ${TURNS * (STEPS + 1)} steps)`,
    );
    row('no plugin (baseline)', none);
    row('plugin loaded, default mode', median(samples.default));
    row('plugin loaded, plan mode', median(samples.plan));

    // The fold on a 100,000-event session: a mode/set near the start, request headers throughout.
    const events = [];
    for (let i = 0; i < 100_000; i++) {
      const type = i === 1 ? 'mode/set' : i % 50 === 0 ? 'request/header-delta' : 'user/message';
      events.push({ seq: i + 1, type, data: type === 'mode/set' ? { mode: 'plan' } : {}, time: '' });
    }
    const session = { events };
    const cache = new ModeFoldCache();
    cache.read(session);
    const tick = { seq: 0, type: 'user/message', data: {}, time: '' };
    const full = timePerCall(() => new ModeFoldCache().read(session), { ms: 300, batch: 5 });
    const backward = timePerCall(() => foldMode(events), { ms: 300, batch: 5 });
    const fullBaseline = { label: 'full refold', valueOf: () => full };
    const incremental = timePerCall(
      () => {
        events.push(tick);
        cache.read(session);
      },
      { ms: 200, batch: 1000 },
    );
    const unchanged = timePerCall(() => cache.read(session), { ms: 200, batch: 1000 });
    const speedup = (ns) => `${Math.round(full / ns).toLocaleString('en-US')}× faster than a full refold`;
    console.log('  fold per read, 100,000-event session');
    report('full refold (fresh cursor over every event; baseline)', { text: formatNs(full) });
    report(
      'foldMode(events) (backward scan to the last mode/set)',
      { text: formatNs(backward), valueOf: () => backward },
      { baseline: fullBaseline },
    );
    report('incremental cursor, one new event per read', { text: formatNs(incremental) });
    console.log(`    ${speedup(incremental)}`);
    report('incremental cursor, no new event', { text: formatNs(unchanged) });
    console.log(`    ${speedup(unchanged)}`);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
