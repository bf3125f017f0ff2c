// The host around the table: one step against a floor loop, the gate as the host runs it (plugin loaded, plan
// mode), a step on a long resumed session, resume, and journal appends with the plugin loaded.
// Imports dist/: `npm run build` first (`npm run bench` does).
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { symbols } from 'cordis';
import { scriptedModel } from '../dist/host/index.js';
import { consume, interleave, ratioResult } from './lib.mjs';
import { deployment, floorStepper, stepScript, stepper } from './steps.mjs';

const BENCH = 'host';

/** Writes a journal of `events` events (turns of 100) and returns its id. */
async function bigSession(ctx, id, events) {
  const session = ctx.sessions.create({ id });
  const payload = { text: 'x'.repeat(120) };
  for (let turn = 1; session.events.length < events; turn++) {
    await session.append('turn/start', { turn });
    for (let i = 0; i < 98; i++) await session.append('user/message', payload);
    await session.append('turn/end', { turn, reason: 'done' });
  }
  session.close();
  return session.file;
}

/**
 * `n` steps on a resumed session (one turn of n steps), the session and its agent kept across blocks, as a resumed
 * chat keeps them: the agent's one walk over the log on its first step belongs to resume, measured on its own.
 */
function resumedStepper(name, ctx, session) {
  let script;
  let agent;
  const model = { name: 'bench', complete: (request, onChunk) => script.complete(request, onChunk) };
  return {
    name,
    async run(n) {
      script = scriptedModel(stepScript(n), { record: false });
      agent ??= ctx.agents.create({ session, model, options: { maxSteps: n } });
      const outcome = await agent.prompt('go');
      if (outcome.reason !== 'done') throw new Error(`bench turn ended ${outcome.reason}`);
    },
  };
}

export default async function run({ quick }) {
  const blocks = quick ? 3 : 15;
  const blockMs = quick ? 5 : 60;
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-host-'));
  const out = [];
  try {
    const bare = await deployment(workspace, false);
    const moded = await deployment(workspace, true);

    // One step without the plugin against the floor: the same work with no framework.
    const steps = await interleave([stepper('none', bare), floorStepper()], { blocks, blockMs });
    const us = { unit: 'µs', scale: 1e-3 };
    out.push(ratioResult(BENCH, 'step-vs-floor', steps.none, steps.floor, { ...us, goal: { ratio: 4 } }));

    // The gate as the host runs it on each tool call, for an agent in plan mode, against Map.get: `execute()`
    // awaits `judge()` (the guards' ceiling, narrowed by the `tools/pre-execute` waterfall).
    const tools = moded.tools[symbols.original] ?? moded.tools;
    const agent = moded.agents.create({
      session: moded.sessions.create({ inMemory: true }),
      model: scriptedModel([{ text: 'done' }], { record: false }),
      options: { mode: 'plan' },
    });
    await agent.prompt('go'); // lands the mode
    const exec = { callId: 'c1', name: 'noop', arguments: {}, agent };
    const first = await tools.judge(exec);
    if (first.kind !== 'allow') throw new Error(`bench gate: noop is ${first.kind} in plan`);
    const table = new Map(['noop', 'read', 'write', 'bash'].map((k) => [k, { kind: 'allow' }]));
    const gate = await interleave(
      [
        {
          name: 'gate',
          async run(n) {
            for (let i = 0; i < n; i++) consume((await tools.judge(exec)).kind);
          },
        },
        {
          name: 'map',
          run(n) {
            for (let i = 0; i < n; i++) consume(table.get('noop').kind);
          },
        },
      ],
      { blocks, blockMs },
    );
    out.push(ratioResult(BENCH, 'gate-host-vs-map-get', gate.gate, gate.map, { goal: { ratio: 3 } }));

    // Per step on a resumed 100k-event session against a resumed 1k-event one (both journals on disk).
    const bigEvents = quick ? 5_000 : 100_000;
    const bigFile = await bigSession(bare, 'bench-big', bigEvents);
    await bigSession(bare, 'bench-small', 1_000);
    const big = await bare.sessions.resume('bench-big');
    const small = await bare.sessions.resume('bench-small');
    // Blocks of one turn each, ending in the turn's fsync, whose time on this disk varies tenfold: many of them.
    const resumed = await interleave(
      [resumedStepper('big', bare, big), resumedStepper('small', bare, small)],
      { blocks: quick ? 3 : 61, ops: quick ? 5 : 50 },
    );
    big.close();
    small.close();
    out.push(
      ratioResult(BENCH, 'step-100k-vs-1k', resumed.big, resumed.small, { ...us, goal: { ratio: 1.2 } }),
    );

    // Resume of the big session against a bare read + split + JSON.parse of the same file.
    const resume = await interleave(
      [
        {
          name: 'resume',
          async run(n) {
            for (let i = 0; i < n; i++) {
              const s = await bare.sessions.resume('bench-big');
              consume(s.events.length);
              s.close();
            }
          },
        },
        {
          name: 'parse',
          run(n) {
            for (let i = 0; i < n; i++) {
              const lines = readFileSync(bigFile, 'utf8').split('\n');
              for (const line of lines) if (line) consume(JSON.parse(line).seq);
            }
          },
        },
      ],
      // A block is one resume of ~170 ms: a few seconds of them, for a median the machine's drift cannot move.
      { blocks: quick ? 3 : 21, ops: 1 },
    );
    const ms = { unit: 'ms', scale: 1e-6 };
    out.push(
      ratioResult(BENCH, 'resume-100k-vs-parse', resume.resume, resume.parse, {
        ...ms,
        goal: { ratio: 1.2 },
      }),
    );

    // Journal appends on disk with the plugin loaded, against bare JSON.stringify + writeSync to a file.
    const payload = { text: 'x'.repeat(120) };
    const journal = moded.sessions.create({ id: 'bench-appends' });
    await journal.append('turn/start', { turn: 1 });
    const rawFile = join(workspace, 'raw.jsonl');
    appendFileSync(rawFile, '');
    const fd = openSync(rawFile, 'a');
    let seq = 0;
    const appends = await interleave(
      [
        {
          name: 'journal',
          async run(n) {
            for (let i = 0; i < n; i++) await journal.append('user/message', payload);
          },
        },
        {
          name: 'bare',
          run(n) {
            for (let i = 0; i < n; i++) {
              const line = JSON.stringify({
                seq: ++seq,
                type: 'user/message',
                data: payload,
                time: new Date().toISOString(),
              });
              writeSync(fd, line + '\n');
            }
          },
        },
      ],
      { blocks, blockMs },
    );
    closeSync(fd);
    await journal.append('turn/end', { turn: 1, reason: 'done' });
    journal.close();
    out.push(
      ratioResult(BENCH, 'journal-append-vs-bare', appends.journal, appends.bare, { goal: { ratio: 1.2 } }),
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  return out;
}
