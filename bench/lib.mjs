// Shared helpers for the benchmarks: every figure is measured in the same run as its baseline,
// and printed as a ratio, so the numbers mean something on any machine.

/** Runs `fn` repeatedly for about `ms` milliseconds after a warm-up; returns nanoseconds per call. */
export function timePerCall(fn, { ms = 300, batch = 1000 } = {}) {
  for (let i = 0; i < batch * 10; i++) fn(i);
  let calls = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < batch; i++) fn(calls + i);
    calls += batch;
    elapsed = process.hrtime.bigint() - start;
  }
  return Number(elapsed) / calls;
}

/** Times one async or sync call once, in milliseconds. */
export async function timeOnce(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Formats nanoseconds for people. */
export function formatNs(ns) {
  if (ns < 1_000) return `${ns.toFixed(1)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

/** Prints one result line: `name  value  (ratio× baseline)`. */
export function report(name, value, { baseline, unit = '' } = {}) {
  const ratio =
    baseline === undefined ? '' : `  (${(value / baseline).toFixed(2)}× ${baseline.label ?? 'baseline'})`;
  console.log(`  ${name.padEnd(58)} ${String(value.text ?? value).padStart(14)}${unit}${ratio}`);
}
