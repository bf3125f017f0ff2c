/**
 * The mode engine (docs/architecture.md; the RFC with the policy language in place of plain allowlists): the
 * journaled `mode/set` vocabulary and its fold, `ctx.modes`, the soft layer (section + tool view), the hard
 * layer (the gate, a `ctx.tools.guard()`), `exit_plan_mode`, and the configuration that compiles policies for them.
 *
 * Default mode is the absence of policy: with the plugin loaded, a session that never saw a `mode/set` sends the
 * model byte-identical requests to a deployment without it. See README.md in this folder.
 *
 * This is the folder's own index, for the CLI and the tests; it is not a package entry. The package exports
 * `api.ts` as `dsh-mode/engine` and `plugin-api.ts` as `dsh-mode/engine/plugin`.
 * @module
 */
export { DEFAULT_MODE, EXIT_PLAN_MODE, MODE_SECTION, MODE_SECTION_ORDER, PLAN_MODE } from './vocabulary.js';
export {
  foldMode,
  MALFORMED_MODE,
  ModeFoldCache,
  modeOfSet,
  type EventSource,
  type ModeFold,
} from './fold.js';
// The configuration is src/deploy's; re-exported here for the plugin's users.
export {
  DEFAULT_MODE_DESCRIPTION,
  formatDiagnostics,
  resolveModeConfig,
  type ConfigSource,
  type ModeConfig,
  type ModeListEntry,
  type ResolvedModes,
  type ResolveResult,
} from '../deploy/index.js';
export { hintsOf, ModeCore, type Intent, type ToolLookup } from './core.js';
export {
  ModesService,
  requestFlip,
  UnknownModeError,
  type ModeInfo,
  type ModeState,
  type ModeSubject,
} from './service.js';
export { createBoundaryListener, narration, type SessionEventListener } from './boundary.js';
export { createModeSection, createToolView, undefinedModeSection } from './soft-layer.js';
export {
  alreadyApprovedReason,
  alreadyApprovedUserReason,
  createGate,
  EXIT_ALREADY_APPROVED_RULE,
} from './gate.js';
export {
  askReason,
  authorize,
  DEFAULT_MODE_RULE,
  denyReason,
  EXIT_PLAN_MODE_HINTS,
  UNDEFINED_MODE_RULE,
  userDenyReason,
  type ModeView,
  type PolicyLookup,
  type ToolCall,
  type Verdict,
} from './authorize.js';
export {
  createExitPlanModeTool,
  exitDeniedText,
  planTitle,
  type ExitPlanModeArgs,
} from './exit-plan-mode.js';
export { apply, createModePlugin, inject, ModeConfigError, ModePlugin, name } from './plugin.js';
