/**
 * `dsh-mode/engine`: the engine's decision as a library, with no cordis and no host. `authorize(policies, mode,
 * call)` decides one tool call in one mode from what `compilePolicies` returned; the vocabulary names the modes
 * and the tool the engine reserves; `foldMode` finds a session's mode in a log of session events.
 *
 * The cordis plugin (the gate, the prompt filter, `ctx.modes`, `exit_plan_mode`) is `dsh-mode/engine/plugin`.
 * @module
 */
export {
  authorize,
  DEFAULT_MODE_RULE,
  EXIT_PLAN_MODE_HINTS,
  UNDEFINED_MODE_RULE,
  type PolicyLookup,
  type ToolCall,
  type Verdict,
} from './authorize.js';
export { DEFAULT_MODE, EXIT_PLAN_MODE, PLAN_MODE } from './vocabulary.js';
export { foldMode, MALFORMED_MODE, modeOfSet } from './fold.js';
export type { Decision, Hints, RuleRef } from '../compile/types.js';
