/**
 * The shared, deterministic configuration of the reliability suite (issue 7). Every random choice comes from a
 * fixed seed; run counts are small by default (the CI subset, plain `vitest run`) and scale up with
 * `DSH_RELIABILITY=long` (what `npm run reliability` runs). When `DSH_RELIABILITY_OUT` names a file, every check
 * appends one JSON line `{area, name, runs, seed, ms, violations, notes}` to it, which scripts/reliability.mjs
 * turns into docs/reliability.md. Nothing here changes what a test asserts: a violation still fails the test.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/** True for the long run (`DSH_RELIABILITY=long`). */
export const LONG = process.env.DSH_RELIABILITY === 'long';

/** The base seed; each check derives its own from it and its name, so adding a check never reshuffles others. */
export const BASE_SEED = Number(process.env.DSH_RELIABILITY_SEED ?? 20261130);

/**
 * @param ci the count for the CI subset
 * @param long the count for the long run
 * @returns the count for this run
 */
export function scale(ci: number, long: number): number {
  return LONG ? long : ci;
}

/** A stable 31-bit seed for a check: the base seed mixed with the check's name (FNV-1a). */
export function seedOf(name: string): number {
  let h = 0x811c9dc5 ^ BASE_SEED;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}

/** A small deterministic PRNG (mulberry32) for the tests that are not fast-check properties. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One line of the report. */
export interface ReliabilityRecord {
  /** The issue item: `fuzz`, `crash`, `hostile`, `load`. */
  area: string;
  name: string;
  runs: number;
  seed: number | null;
  ms: number;
  violations: number;
  notes?: string;
}

/** Appends a record to the report file, when the run collects one. */
export function record(entry: ReliabilityRecord): void {
  const out = process.env.DSH_RELIABILITY_OUT;
  if (!out) return;
  appendFileSync(out, JSON.stringify({ ...entry, long: LONG }) + '\n');
}

/**
 * Runs a fast-check property with a derived seed and a run count for this run; records it; fails the test with
 * fast-check's report (seed and counterexample) on a violation.
 * @param area the report area
 * @param name the check's name (also its seed)
 * @param property the property
 * @param runs `[ci, long]` run counts
 * @param notes what the report says was generated
 */
export async function check<Ts>(
  area: string,
  name: string,
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  runs: [number, number],
  notes?: string,
): Promise<void> {
  const seed = seedOf(name);
  const started = performance.now();
  const details = await fc.check(property as fc.IAsyncProperty<Ts>, {
    seed,
    numRuns: scale(...runs),
  });
  const ms = performance.now() - started;
  record({ area, name, runs: details.numRuns, seed, ms, violations: details.failed ? 1 : 0, notes });
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : '';
    throw new Error(`${fc.defaultReportMessage(details) ?? `property ${name} failed`}\n${cause}`);
  }
}

/**
 * Times a hand-rolled check and records it: `body` returns how many runs it did and the violations it saw
 * (each violation is also asserted inside the body, so the test fails).
 */
export async function measured(
  area: string,
  name: string,
  seed: number | null,
  body: () => Promise<{ runs: number; violations: number; notes?: string }>,
): Promise<void> {
  const started = performance.now();
  try {
    const result = await body();
    record({ area, name, seed, ms: performance.now() - started, ...result });
  } catch (error) {
    // A failed assertion is a violation: record it before the test fails, so the report never shows it as held.
    record({
      area,
      name,
      seed,
      ms: performance.now() - started,
      runs: 0,
      violations: 1,
      notes: String(error),
    });
    throw error;
  }
}
