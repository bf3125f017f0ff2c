/**
 * `dsh-mode/compile`: the policy compiler's public API. Load (parse and validate) policy documents, compile them
 * into one decision per mode, decide a call by its name and arguments, and lint, with rules of your own written
 * with `defineRule`. Pure except loading files. Nothing here imports cordis, the engine or the host. Every name is
 * listed, with its kind, in docs/reference/api.md; anything else under `dist/` is not API.
 * @module
 */
export type {
  CallDecision,
  CallInput,
  CompiledPolicy,
  DecideCallOptions,
  Decision,
  Diagnostic,
  Hints,
  PathResolver,
  PolicyDocument,
  RuleRef,
} from './types.js';
export { policySchema } from './language/schema.js';
export { hasErrors } from './language/diagnostics.js';
export {
  BUILTIN_PLAN_PATH,
  loadPolicySources,
  loadPolicyText,
  type LoadOptions,
  type LoadResult,
} from './language/load.js';
export { compilePolicies, type CompiledPolicySet } from './decide/compile.js';
export { decideCall } from './decide/call.js';
export { fsPathResolver } from './decide/fs-path-resolver.js';
export { lexicalPathResolver } from './decide/paths.js';
export { lintPolicies, type LintOptions } from './lint/lint.js';
export { rules as lintRules } from './lint/rules/index.js';
export { defineRule, type RuleContext, type RuleDefinition } from './lint/rules/define.js';
export { parseCatalog, type ToolCatalogEntry } from './catalog/catalog.js';
