/**
 * The mode engine's vocabulary: the `mode/set` session event and the `mode` agent option, merged into the host's
 * open interfaces, and the two names the engine reserves.
 *
 * `mode/set {mode}` is log-only (not in `SURFACE_EVENT_TYPES`, so it never reaches the model transcript and no
 * compaction can hide it) and whole-value: the last one in the log is the active mode. It carries no reason or
 * source field: a tool-driven flip sits next to its `tool/call`, a user flip on its turn boundary, so the cause is
 * adjacent in the log (RFC, "Vocabulary").
 * @module
 */

declare module '../host/types.js' {
  interface SessionEventMap {
    /** The active mode from here on (log-only, non-surface, whole-value replace: the last one wins). */
    'mode/set': { mode: string };
  }
  interface AgentOptions {
    /**
     * The mode the agent starts in: seeded as a pending intent at `agent/created`, landing at the first
     * `turn/start`. It also wins over the mode folded from a resumed log; absent, the log decides.
     */
    mode?: string;
  }
}

/** The mode of a log with no `mode/set`: the absence of policy. Reserved; no document may define it. */
export { DEFAULT_MODE } from '../compile/types.js';

/** The built-in planning mode (`policies/plan.yaml`). */
export const PLAN_MODE = 'plan';

/** The model-side tool that proposes a plan and, once approved, returns the session to the default mode. */
export const EXIT_PLAN_MODE = 'exit_plan_mode';

/** The name of the prompt section the engine renders for the active mode. */
export const MODE_SECTION = 'mode:policy';

/** Where the mode section sits: after persona (0), before tool guidance (100–199). */
export const MODE_SECTION_ORDER = 50;
