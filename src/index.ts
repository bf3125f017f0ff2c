/**
 * `dsh-mode`: the embedding path in one import. Load policies, compile them, and decide tool calls with
 * `authorize`, with no cordis and no host. Everything here is also exported by the entry it comes from:
 * `dsh-mode/compile` (the whole compiler: validation, lint, `defineRule`, the document and diagnostic types) and
 * `dsh-mode/engine` (the decision and the mode vocabulary). The cordis plugin is `dsh-mode/engine/plugin`.
 * @module
 */
export {
  BUILTIN_PLAN_PATH,
  compilePolicies,
  hasErrors,
  lintPolicies,
  loadPolicySources,
  loadPolicyText,
  type CompiledPolicy,
  type CompiledPolicySet,
  type Diagnostic,
  type LoadResult,
} from './compile/api.js';
export {
  authorize,
  DEFAULT_MODE,
  EXIT_PLAN_MODE,
  PLAN_MODE,
  type Decision,
  type Hints,
  type RuleRef,
  type ToolCall,
  type Verdict,
} from './engine/api.js';
