// The reference host: journal appends per second (in memory and on disk, against a bare writeSync of the same
// lines), resume time of a 100,000-event session (against a bare read + JSON.parse per line), and the loop's
// overhead per step with the scripted model (steps per second, and the share spent in assembly and in logging).
import { mkdtempSync, openSync, closeSync, writeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from 'cordis';
import { applyHost, scriptedModel, JournalSession, SystemPromptService } from '../dist/host/index.js';
import { report, timeOnce } from './lib.mjs';

const payload = { text: 'x'.repeat(120) };

async function host(workspace) {
  const ctx = new Context();
  await applyHost(ctx, { workspace });
  return ctx;
}

async function appendsPerSecond(session, count) {
  await session.append('turn/start', { turn: 1 });
  const ms = await timeOnce(async () => {
    for (let i = 0; i < count; i++) await session.append('user/message', payload);
  });
  await session.append('turn/end', { turn: 1, reason: 'done' });
  return count / (ms / 1000);
}

export default async function run() {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-'));
  try {
    const ctx = await host(workspace);
    const count = 50_000;

    const rawFile = join(workspace, 'raw.jsonl');
    const fd = openSync(rawFile, 'w');
    const rawMs = await timeOnce(() => {
      for (let i = 0; i < count; i++) {
        const line = JSON.stringify({
          seq: i + 1,
          type: 'user/message',
          data: payload,
          time: new Date().toISOString(),
        });
        writeSync(fd, line + '\n');
      }
    });
    closeSync(fd);
    const raw = count / (rawMs / 1000);
    const rate = (value) => ({ text: `${Math.round(value)}/s`, valueOf: () => value });
    const baseline = { ...rate(raw), label: 'bare writeSync' };
    report('bare JSON.stringify + writeSync (baseline)', rate(raw));
    const memory = await appendsPerSecond(ctx.sessions.create({ inMemory: true }), count);
    report('journal appends, in memory', rate(memory), { baseline });
    const disk = await appendsPerSecond(ctx.sessions.create({ id: 'bench-appends' }), count);
    report('journal appends, on disk (.jsonl, fsync at turn/end)', rate(disk), { baseline });

    // A 100,000-event session: 1,000 turns of 100 events.
    const big = ctx.sessions.create({ id: 'bench-resume' });
    for (let turn = 1; turn <= 1000; turn++) {
      await big.append('turn/start', { turn });
      for (let i = 0; i < 98; i++) await big.append('user/message', payload);
      await big.append('turn/end', { turn, reason: 'done' });
    }
    big.close();
    const parseMs = await timeOnce(() => {
      const lines = readFileSync(big.file, 'utf8').split('\n');
      for (const line of lines) if (line) JSON.parse(line);
    });
    let resumed;
    const resumeMs = await timeOnce(async () => {
      resumed = await ctx.sessions.resume('bench-resume');
    });
    resumed.close();
    const ms = (value) => ({ text: `${value.toFixed(1)} ms`, valueOf: () => value });
    report('bare read + JSON.parse of 100,000 lines (baseline)', ms(parseMs));
    report(`resume of a ${resumed.events.length}-event session`, ms(resumeMs), {
      baseline: { ...ms(parseMs), label: 'bare parse' },
    });

    // Loop overhead: one turn of N steps, each one call of a no-op tool, with the time in assembly and logging.
    const steps = 2000;
    ctx.tools.register({
      name: 'noop',
      description: 'Nothing.',
      parameters: { type: 'object' },
      execute: () => ({ content: 'ok' }),
    });
    ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'You are a benchmark.' });
    const script = Array.from({ length: steps - 1 }, () => ({
      tool_calls: [{ name: 'noop', arguments: {} }],
    }));
    script.push({ text: 'done' });
    const model = scriptedModel(script, { record: false });
    const agent = ctx.agents.create({
      session: ctx.sessions.create({ inMemory: true }),
      model,
      options: { maxSteps: steps },
    });
    const spent = { assemble: 0, append: 0 };
    const wrap = (proto, key, bucket) => {
      const original = proto[key];
      proto[key] = async function (...args) {
        const start = process.hrtime.bigint();
        try {
          return await original.apply(this, args);
        } finally {
          spent[bucket] += Number(process.hrtime.bigint() - start) / 1e6;
        }
      };
      return () => (proto[key] = original);
    };
    const unwrapA = wrap(SystemPromptService.prototype, 'assemble', 'assemble');
    const unwrapB = wrap(JournalSession.prototype, 'append', 'append');
    const loopMs = await timeOnce(() => agent.prompt('go'));
    unwrapA();
    unwrapB();
    report(`loop with the scripted model (${steps} steps, 1 tool call each)`, {
      text: `${Math.round(steps / (loopMs / 1000))} steps/s`,
    });
    report('  per step', { text: `${((loopMs / steps) * 1000).toFixed(1)} µs` });
    report('  share in assembly', { text: `${((spent.assemble / loopMs) * 100).toFixed(1)} %` });
    report('  share in logging (session.append)', {
      text: `${((spent.append / loopMs) * 100).toFixed(1)} %`,
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
