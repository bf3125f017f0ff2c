// The benchmark method, shared by every bench/*.mjs: each contender runs in its own loop, the contenders run
// interleaved in many blocks (A B A B …) so drift in the machine's speed hits all alike, every contender is warmed
// first, and each figure is a median with its spread. A ratio is taken per block (contender / baseline of the same
// block), so its spread shows how far the machine moved between blocks.

/** Nanoseconds now. */
export const now = () => Number(process.hrtime.bigint());

/** The median of numbers (the lower middle for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Runs contenders interleaved. Each contender is `{ name, run(n), scale? }`: `run` does `n` operations (sync or
 * async) and returns nothing; its time is measured around the call. `n` is the same for every block (times the
 * contender's `scale`, for one far slower than the others), grown until the slowest block takes about `blockMs`,
 * unless `ops` fixes it.
 * @returns per contender: `ns` (nanoseconds per operation, one entry per block)
 */
export async function interleave(contenders, { blocks = 15, blockMs = 40, ops, warmups = 2 } = {}) {
  let n = ops ?? 1;
  const count = (c) => Math.max(1, Math.round(n * (c.scale ?? 1)));
  for (const c of contenders) await c.run(count(c));
  if (ops === undefined) {
    // Grow n until the slowest contender's block is long enough to time.
    for (;;) {
      let slowest = 0;
      for (const c of contenders) {
        const start = now();
        await c.run(count(c));
        slowest = Math.max(slowest, now() - start);
      }
      if (slowest >= blockMs * 1e6 || n >= 1e8) break;
      n = Math.ceil(n * Math.min(100, Math.max(2, (blockMs * 1e6) / Math.max(slowest, 1))));
    }
  }
  for (let w = 0; w < warmups; w++) for (const c of contenders) await c.run(count(c));
  const ns = contenders.map(() => []);
  for (let b = 0; b < blocks; b++) {
    // Alternate the order too (ABAB, then BABA), so neither always runs right after the other.
    const order =
      b % 2 === 0 ? contenders.map((_, i) => i) : contenders.map((_, i) => contenders.length - 1 - i);
    for (const i of order) {
      const k = count(contenders[i]);
      const start = now();
      await contenders[i].run(k);
      ns[i].push((now() - start) / k);
    }
  }
  return Object.fromEntries(contenders.map((c, i) => [c.name, ns[i]]));
}

/**
 * One result line: the contender's median, the baseline's median, the median of the per-block ratios and their
 * spread. `scale` converts nanoseconds to `unit` (1e-3 for µs, 1e-9 for s). With `group`, a ratio is taken per
 * run of that many neighbouring blocks (the sum of the contender's over the baseline's): a thousand blocks of
 * 2 ms each have outliers (a collection, a stolen time slice) that would make the spread mean nothing.
 */
export function ratioResult(
  bench,
  metric,
  samples,
  baselineSamples,
  { unit = 'ns', scale = 1, goal, group = 1 } = {},
) {
  const ratios = [];
  for (let i = 0; i + group <= samples.length; i += group) {
    let a = 0;
    let b = 0;
    for (let k = i; k < i + group; k++) {
      a += samples[k];
      b += baselineSamples[k];
    }
    ratios.push(a / b);
  }
  return {
    bench,
    metric,
    value: round(median(samples) * scale),
    unit,
    baseline: round(median(baselineSamples) * scale),
    ratio: round(median(ratios)),
    spread: [round(Math.min(...ratios)), round(Math.max(...ratios))],
    ...(goal ? { goal } : {}),
  };
}

/** A result without a ratio goal of its own (an absolute figure): spread of the values. */
export function valueResult(bench, metric, samples, { unit = 'ns', scale = 1, baselineSamples, goal } = {}) {
  const out = {
    bench,
    metric,
    value: round(median(samples) * scale),
    unit,
    baseline: baselineSamples ? round(median(baselineSamples) * scale) : null,
    ratio: baselineSamples ? round(median(samples.map((v, i) => v / baselineSamples[i]))) : null,
    spread: [round(Math.min(...samples) * scale), round(Math.max(...samples) * scale)],
  };
  if (goal) out.goal = goal;
  return out;
}

/** Three significant digits, so JSON stays readable. */
export function round(x) {
  if (x === 0 || !Number.isFinite(x)) return x;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))));
  return Number(x.toFixed(Math.min(digits, 9)));
}

/** Keeps a value alive so the optimiser cannot drop the work that made it. */
export let sink = 0;
export function consume(x) {
  sink = (sink + (typeof x === 'number' ? x : typeof x === 'string' ? x.length : 1)) | 0;
}
