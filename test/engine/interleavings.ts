/**
 * The fast-check generators of random interleavings over the real loop, shared by the engine's flip properties
 * (`property.test.ts`) and the reliability loop fuzz (`../reliability/fuzz-loop.test.ts`): turns of steps of tool
 * calls, with user flips before a turn, at a tool call and at each step end, and the scripted-model script that
 * plays them. Each test adds what only it varies (answers, cancellations, restarts) as extra turn fields.
 */
import fc from 'fast-check';
import type { ScriptEntry } from '../../src/host/index.js';

/** The modes flips go to: no mode, the built-in plan, and an inline `review` the tests define. */
export const MODES = ['default', 'plan', 'review'] as const;
export type Mode = (typeof MODES)[number];

export const mode: fc.Arbitrary<Mode> = fc.constantFrom(...MODES);

/** Zero to two user flips at one point. */
export const flips: fc.Arbitrary<Mode[]> = fc.array(mode, { maxLength: 2 });

/** One model step: one to three calls, each maybe followed by a flip, and the flips at its `step/end`. */
export interface Step<T extends string> {
  calls: { tool: T; flip: Mode | undefined }[];
  flips: Mode[];
}

/** One turn: flips before it, up to three tool steps, and the flips at the `step/end` of its final text step. */
export interface Turn<T extends string> {
  before: Mode[];
  steps: Step<T>[];
  finalFlips: Mode[];
}

/**
 * One to four turns over `tools`, each with the fields of `extra` added (a test's own variations).
 * @param tools the tool names the model calls
 * @param extra more turn fields, by name
 */
export function turns<T extends string, X extends object = Record<never, never>>(
  tools: readonly T[],
  extra?: { [K in keyof X]: fc.Arbitrary<X[K]> },
): fc.Arbitrary<(Turn<T> & X)[]> {
  const call = fc.record({ tool: fc.constantFrom(...tools), flip: fc.option(mode, { nil: undefined }) });
  const step = fc.record({ calls: fc.array(call, { minLength: 1, maxLength: 3 }), flips });
  const turn = fc.record({
    before: flips,
    steps: fc.array(step, { maxLength: 3 }),
    finalFlips: flips,
    ...(extra ?? {}),
  }) as unknown as fc.Arbitrary<Turn<T> & X>;
  return fc.array(turn, { minLength: 1, maxLength: 4 });
}

/** The scripted model's script for `turns`, and the flips to make at each `tool/call` and each `step/end`, in order. */
export interface Played {
  script: ScriptEntry[];
  /** By `tool/call` in log order: the flip to make after it, if any. */
  callFlips: (Mode | undefined)[];
  /** By `step/end` in log order (tool steps and each turn's final text step). */
  stepFlips: Mode[][];
}

/**
 * Plays turns as a script: each tool step is one entry calling its tools, each turn ends with a text-only entry.
 * @param argumentsOf the arguments a call of `tool` sends
 */
export function play<T extends string>(
  played: readonly Turn<T>[],
  argumentsOf: (tool: T) => Record<string, unknown>,
): Played {
  const script: ScriptEntry[] = [];
  const callFlips: (Mode | undefined)[] = [];
  const stepFlips: Mode[][] = [];
  for (const t of played) {
    for (const s of t.steps) {
      script.push({
        text: 's',
        tool_calls: s.calls.map((c) => ({ name: c.tool, arguments: argumentsOf(c.tool) })),
      });
      callFlips.push(...s.calls.map((c) => c.flip));
      stepFlips.push(s.flips);
    }
    script.push({ text: 'done' });
    stepFlips.push(t.finalFlips);
  }
  return { script, callFlips, stepFlips };
}
