/**
 * Durability: a real child process appends to a session on the built host and is killed with SIGKILL mid-stream;
 * resuming the session loses no event the child had acknowledged (printed after `append()` resolved), drops at
 * most a torn last line, and closes the interrupted turn. Also: a second process cannot open a session that a
 * live process holds.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from './setup.js';
import { copyDist } from '../dist-copy.js';

let hostModule = '';
beforeAll(() => {
  hostModule = join(copyDist(), 'host', 'index.js');
}, 120_000);
afterAll(() => rmSync(join(dirname(hostModule), '../..'), { recursive: true, force: true }));

const writer = join(import.meta.dirname, 'crash-writer.mjs');

describe('kill -9 while appending', () => {
  it('keeps every acknowledged event', async () => {
    const { ctx, workspace } = await setup({ builtinTools: false });
    const child = spawn(process.execPath, [writer, hostModule, workspace, 'crashy'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acknowledged = 0;
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const line of lines) acknowledged = Math.max(acknowledged, Number(line));
        if (acknowledged >= 2000 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', (code) =>
        code === null ? undefined : reject(new Error(`writer exited ${code}: ${stderr}`)),
      );
    });
    await new Promise((resolve) => child.on('close', resolve));
    // The dead writer's lock is stale (its pid is gone): resume takes it over.
    const session = await ctx.sessions.resume('crashy');
    const seqs = session.events.map((event) => event.seq);
    expect(seqs.length).toBeGreaterThanOrEqual(acknowledged);
    expect(seqs.slice(0, acknowledged)).toEqual(Array.from({ length: acknowledged }, (_, i) => i + 1));
    expect(session.turnOpen).toBe(false);
    session.close();
  });

  it('refuses a second process while the first holds the session', async () => {
    const { workspace } = await setup({ builtinTools: false });
    const child = spawn(process.execPath, [writer, hostModule, workspace, 'held'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const second = spawn(process.execPath, [writer, hostModule, workspace, 'held'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => second.on('close', resolve));
    child.kill('SIGKILL');
    expect(code).not.toBe(0);
    expect(stderr).toMatch(new RegExp(`held\\.jsonl is in use by process ${child.pid}`));
  });
});
