/**
 * Item 2, crash safety: a child process runs a scripted plan-mode session on a private build of the host and engine (approvals
 * answered by a scripted answerer) and is killed with SIGKILL at a random point, many times (the CI subset 3, one chain; the long run 200).
 * Kills come in chains: the next child resumes the log the killed one left and goes on, so crashes accumulate in
 * one log (each check also sees that everything earlier runs left is unchanged).
 * After each kill the session is resumed in this process with the real host and engine, and: the log is a valid
 * prefix (it parses, `seq` is contiguous); every event the child acknowledged is there with the acknowledged type;
 * every acknowledged landed mode is what the log folds to at that seq; and the engine's mode after resume equals
 * `foldMode` of the resumed log (and the gate uses it: a non-read-only tool runs only in default).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldMode } from '../../src/engine/index.js';
import type { Tool } from '../../src/host/index.js';
import { agentOf, setup, tempDir } from '../engine/setup.js';
import { copyDist } from '../dist-copy.js';
import { measured, rng, scale, seedOf } from './config.js';
import { unapprovedExits } from './invariants.js';

const child = join(import.meta.dirname, 'crash-child.mjs');
let built = '';
beforeAll(() => {
  built = copyDist();
}, 180_000);
afterAll(() => rmSync(dirname(built), { recursive: true, force: true }));

interface Acks {
  events: Map<number, string>;
  modes: Map<number, string>;
  turns: number[];
  stderr: string;
}

/** Runs the child until it has acknowledged `killAfter` events, then SIGKILLs it; returns what it acknowledged. */
function runAndKill(workspace: string, id: string, seed: number, killAfter: number): Promise<Acks> {
  const acks: Acks = { events: new Map(), modes: new Map(), turns: [], stderr: '' };
  const proc = spawn(process.execPath, [child, built, workspace, id, String(seed)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffer = '';
  let killed = false;
  return new Promise((resolve, reject) => {
    proc.stderr.on('data', (chunk) => (acks.stderr += chunk));
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const [kind, seq, value] = line.split(' ');
        if (kind === 'ev') acks.events.set(Number(seq), value!);
        else if (kind === 'mode') acks.modes.set(Number(seq), value!);
        else if (kind === 'turn') acks.turns.push(Number(seq));
      }
      if (!killed && acks.events.size >= killAfter) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acks);
      else reject(new Error(`child exited ${code} before the kill: ${acks.stderr}`));
    });
  });
}

describe('crash safety: SIGKILL at random points of a plan-mode session', () => {
  it('every resume is a valid prefix holding everything acknowledged, in the mode the log says', async () => {
    const seed = seedOf('crash: SIGKILL and resume');
    const kills = scale(3, 200);
    await measured('crash', 'crash: SIGKILL and resume', seed, async () => {
      const random = rng(seed);
      let maxEvents = 0;
      let torn = 0;
      // Crashes accumulate: each chain is one session log that `chain` children in a row continue and get killed.
      const chain = scale(3, 10);
      let workspace = '';
      let before: string[] = [];
      for (let k = 0; k < kills; k++) {
        if (k % chain === 0) {
          workspace = tempDir('dsh-crash-');
          before = [];
        }
        const killAfter = 1 + Math.floor(random() * 300);
        const acks = await runAndKill(workspace, 'crashy', Math.floor(random() * 2 ** 31), killAfter);
        const { ctx, warnings } = await setup({ workspace });
        const ran: string[] = [];
        const change: Tool = {
          name: 'change',
          description: 'change',
          parameters: { type: 'object' },
          execute: (_a, c) => (ran.push(c.callId), { content: 'ran' }),
        };
        ctx.tools.register(change);
        const session = await ctx.sessions.resume('crashy');
        if (warnings.some((w) => w.includes('torn'))) torn++;
        const events = session.events;
        maxEvents = Math.max(maxEvents, events.length);
        events.forEach((e, i) => expect(e.seq).toBe(i + 1));
        // Everything that earlier runs left (checked then) is still there, unchanged.
        expect(events.slice(0, before.length).map((e) => JSON.stringify(e))).toEqual(before);
        for (const [seq, type] of acks.events)
          expect(events[seq - 1]?.type, `acknowledged seq ${seq}`).toBe(type);
        for (const [seq, mode] of acks.modes) expect(foldMode(events, seq), `mode at seq ${seq}`).toBe(mode);
        for (const seq of acks.turns) expect(events[seq - 1]?.type).toBe('turn/end');
        // The children's user flips only go into plan: every exit from plan must be an approved exit_plan_mode.
        expect(unapprovedExits(events)).toEqual([]);
        const { agent } = agentOf(ctx, [{ tool_calls: [{ name: 'change' }] }, { text: 'ok' }], {}, session);
        const landed = ctx.modes.get(agent).current;
        expect(landed).toBe(foldMode(events));
        await agent.prompt('after the crash');
        expect(ran.length, `change after resume in ${landed}`).toBe(landed === 'default' ? 1 : 0);
        before = session.events.map((e) => JSON.stringify(e));
        session.close();
      }
      return {
        runs: kills,
        violations: 0,
        notes: `chains of ${chain} kills on one log (each child resumes the log the last one left); kill after 1–300 acknowledged events; logs up to ${maxEvents} events; ${torn} torn tails dropped (one write() per line: SIGKILL lands between lines; torn tails are fuzzed in the journal checks)`,
      };
    });
  }, 1_800_000);
});
