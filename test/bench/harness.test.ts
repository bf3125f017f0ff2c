/**
 * The benchmark harness in its tiny mode (`--quick`: a few short blocks each): every metric the README table and
 * the performance issue rely on is printed as one JSON line of the right shape. Timing is never asserted here
 * (figures live in `npm run bench`); only that the harness runs end to end and says what it measured.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
// The figures where a person waits (issue 26's performance contract, issue 27's sandbox): each has a goal.
const REQUIRED = [
  'cold-check-vs-node',
  'cold-lint-policy-vs-node',
  'plugin-overhead-default',
  'plugin-overhead-plan',
  'decide-command-uncached-vs-parse',
  'resume-1m-vs-parse',
  'lint-10x5x50-vs-load',
  'sandbox-bash-true-vs-bare-bwrap',
  'cold-hook-bash-vs-node',
  'cold-hook-git-status-vs-node',
  'serve-decision-vs-http-echo',
];

const run = (...args: string[]) =>
  execFileSync(process.execPath, ['bench/run.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });

interface Line {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  spread: [number, number];
  goal?: { ratio?: number; value?: number };
}

describe('bench/run.mjs --quick', () => {
  it('prints every required metric as one JSON object per line, with median, baseline, ratio and spread', async () => {
    const output = run('--quick', '--json');
    const lines = output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const metrics = lines.map((l) => l.metric);
    for (const m of REQUIRED) expect(metrics).toContain(m);
    expect(new Set(metrics).size).toBe(metrics.length);
    for (const l of lines) {
      expect(Object.keys(l)).toEqual(
        expect.arrayContaining(['bench', 'metric', 'value', 'unit', 'baseline', 'ratio', 'spread']),
      );
      expect(typeof l.bench).toBe('string');
      expect(l.value).toBeGreaterThan(0);
      expect(['ns', 'µs', 'ms', 's']).toContain(l.unit);
      expect(l.baseline).toBeGreaterThan(0);
      expect(l.ratio).toBeGreaterThan(0);
      expect(l.spread).toHaveLength(2);
      expect(l.spread[0]).toBeLessThanOrEqual(l.spread[1]);
    }
    // `git status` runs several git processes of its own, so it is shown beside the `ls` figure without a goal.
    for (const m of REQUIRED.filter((m) => m !== 'cold-hook-git-status-vs-node'))
      expect(lines.find((l) => l.metric === m)!.goal?.ratio, m).toBeGreaterThan(0);

    // The README table renders from the same lines: a row per metric, the machine and the goals named.
    const dir = mkdtempSync(join(tmpdir(), 'dsh-bench-test-'));
    try {
      writeFileSync(join(dir, 'results.jsonl'), output);
      const table = run('--markdown', '--from', join(dir, 'results.jsonl'));
      expect(table).toMatch(/cores, Node \d+\.\d+\.\d+/);
      const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| what'));
      expect(rows).toHaveLength(lines.length);
      expect(table).toContain('≤ 1.5×');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
