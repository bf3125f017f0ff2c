/**
 * A call's life, with real processes: the command's own end ends every process it started (even one that left
 * its session with `setsid`, or closed its output), an abort ends the call like a timeout, and output past the
 * cap is counted and dropped. Counts and explicit timeouts only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWith, token, world, type World } from './helpers.js';

let w: World;
beforeAll(() => {
  w = world('life-');
});
afterAll(() => w.remove());

describe('the end of a call', () => {
  it("ends the processes the command left behind when it exits by itself, setsid's included", async () => {
    const mark = token();
    const r = await w.run({
      command: {
        script: `setsid sleep 3600.${mark} >/dev/null 2>&1 < /dev/null & (sleep 3601.${mark} >&- 2>&- &); echo started`,
      },
      timeoutMs: 30_000,
    });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, cancelled: false, output: 'started\n' });
    expect(processesWith(`.${mark}`)).toEqual([]);
  });

  it('an abort ends the call and its processes, like a timeout', async () => {
    const mark = token();
    const controller = new AbortController();
    const pending = w.run({
      command: { script: `m=${mark}; sleep 3600.$m & echo up; wait` },
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    // Abort once the command is running: its process is on the host's process list.
    // The mark is assembled inside, so only the sleep's own command line holds it, not bash's or bwrap's.
    for (let i = 0; i < 500 && processesWith(`3600.${mark}`).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(processesWith(`3600.${mark}`).length).toBe(1);
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ exitCode: null, cancelled: true, timedOut: false });
    expect(processesWith(`3600.${mark}`)).toEqual([]);
  });

  // bwrap arms --die-with-parent only after its setup: an abort early in the call must still end it whole.
  it('an abort at any moment of the start ends the call, and leaves no process', async () => {
    for (const delay of [0, 1, 2, 3, 5, 8, 12, 20]) {
      const mark = token();
      const controller = new AbortController();
      const pending = w.run({
        command: { script: `m=${mark}; sleep 3600.$m & wait` },
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), delay);
      const r = await pending;
      expect(r.cancelled, `abort after ${delay} ms`).toBe(true);
      expect(processesWith(`3600.${mark}`), `abort after ${delay} ms`).toEqual([]);
    }
  }, 120_000);

  it('an already aborted signal runs nothing past the start', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await w.run({
      command: { script: 'echo should-not-finish; sleep 30' },
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
  });
});

describe('calls side by side', () => {
  it('run apart: each its own /tmp, and each ends whole', async () => {
    const calls = [1, 2, 3, 4].map((n) =>
      w.run({
        command: { script: `echo ${n} > /tmp/mine; sleep 0.2; cat /tmp/mine; ls /tmp` },
        timeoutMs: 30_000,
      }),
    );
    const results = await Promise.all(calls);
    expect(results.map((r) => r.output)).toEqual(['1\nmine\n', '2\nmine\n', '3\nmine\n', '4\nmine\n']);
  });
});

describe('output', () => {
  it('keeps at most the cap and counts the rest', async () => {
    const r = await w.run({
      command: { script: 'head -c 1000000 /dev/zero | tr "\\0" x; echo; echo tail >&2' },
      timeoutMs: 30_000,
      maxOutputBytes: 1000,
    });
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe('x'.repeat(1000));
    expect(r.droppedBytes).toBe(1_000_000 + 1 + 5 - 1000);
  });
});
