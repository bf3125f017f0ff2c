/**
 * Item 2, crash safety: a child process runs a scripted plan-mode session on the built host and engine (approvals
 * answered by a scripted answerer) and is killed with SIGKILL at a random point, many times (CI 10, long 200).
 * After each kill the session is resumed in this process with the real host and engine, and: the log is a valid
 * prefix (it parses, `seq` is contiguous); every event the child acknowledged is there with the acknowledged type;
 * every acknowledged landed mode is what the log folds to at that seq; and the engine's mode after resume equals
 * `foldMode` of the resumed log (and the gate uses it: a non-read-only tool runs only in default).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { foldMode } from '../../src/engine/index.js';
import type { Tool } from '../../src/host/index.js';
import { agentOf, setup, tempDir } from '../engine/setup.js';
import { measured, rng, scale, seedOf } from './config.js';

const child = join(import.meta.dirname, 'crash-child.mjs');

interface Acks {
  events: Map<number, string>;
  modes: Map<number, string>;
  turns: number[];
  stderr: string;
}

/** Runs the child until it has acknowledged `killAfter` events, then SIGKILLs it; returns what it acknowledged. */
function runAndKill(workspace: string, id: string, seed: number, killAfter: number): Promise<Acks> {
  const acks: Acks = { events: new Map(), modes: new Map(), turns: [], stderr: '' };
  const proc = spawn(process.execPath, [child, workspace, id, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    const kills = scale(10, 200);
    await measured('crash', 'crash: SIGKILL and resume', seed, async () => {
      const random = rng(seed);
      let maxEvents = 0;
      let torn = 0;
      for (let k = 0; k < kills; k++) {
        const workspace = tempDir('dsh-crash-');
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
        for (const [seq, type] of acks.events) expect(events[seq - 1]?.type, `acknowledged seq ${seq}`).toBe(type);
        for (const [seq, mode] of acks.modes) expect(foldMode(events, seq), `mode at seq ${seq}`).toBe(mode);
        for (const seq of acks.turns) expect(events[seq - 1]?.type).toBe('turn/end');
        const { agent } = agentOf(ctx, [{ tool_calls: [{ name: 'change' }] }, { text: 'ok' }], {}, session);
        const landed = ctx.modes.get(agent).current;
        expect(landed).toBe(foldMode(events));
        await agent.prompt('after the crash');
        expect(ran.length, `change after resume in ${landed}`).toBe(landed === 'default' ? 1 : 0);
        session.close();
      }
      return {
        runs: kills,
        violations: 0,
        notes: `kill after 1–300 acknowledged events; logs up to ${maxEvents} events; ${torn} torn tails dropped`,
      };
    });
  }, 1_800_000);
});
