/**
 * `dsh-mode/compile`: the policy compiler's public API. Load (parse and validate) policy documents, compile them
 * into one decision per mode, and lint them, with rules of your own written with `defineRule`. Pure except
 * loading files. Nothing here imports cordis, the engine or the host.
 * @module
 */
export type * from './types.js';
export type {
  EffectRules,
  InlineTest,
  ModeName,
  RuleObject,
  RuleValue,
  TestAnnotations,
  ToolRules,
} from './language/schema-types.generated.js';
export { policySchema } from './language/schema.js';
export { hasErrors, sortDiagnostics, type LoadCode, type LoadDiagnostic } from './report/diagnostics.js';
export {
  MAX_ALIAS_COUNT,
  MAX_DEPTH,
  MAX_POLICY_BYTES,
  parsePolicyText,
  type ParsedDocument,
} from './language/parse.js';
export { validatePolicy, type ValidateResult } from './language/validate.js';
export {
  BUILTIN_PLAN_PATH,
  loadPolicySources,
  loadPolicyText,
  type LoadOptions,
  type LoadResult,
} from './language/load.js';
export {
  MAX_BRACE_ALTERNATIVES,
  MAX_COMPILED_ALTERNATIVES,
  type ParsedSelector,
  type SelectorAlternative,
} from './decide/glob.js';
export { effectiveHints, HINT_NAMES } from './decide/document.js';
export { compilePolicies, DEFAULT_DENY_RULE, type CompiledPolicySet } from './decide/compile.js';
/**
 * Deciding one call by its name and its arguments (`commands:` and `paths:` patterns), as
 * `CompiledPolicy.decideCall` does: `decideCall(policy, {name, arguments, hints}, {resolvePath})` → a
 * `CallDecision` (decision, rule, and the deciding `subject`, `pattern` and, for a script, `commands`).
 */
export { decideCall, hasArgumentRules } from './decide/call.js';
/**
 * Path resolvers for `DecideCallOptions.resolvePath`: `fsPathResolver(workspace)` follows symlinks on the real
 * filesystem (what a host passes); `lexicalPathResolver(workspace?)` only normalises (the default, pure).
 */
export { fsPathResolver } from './decide/fs-path-resolver.js';
/**
 * The workspace check for `DecideCallOptions.checkProgram`: `fsProgramCheck(workspace)` withholds a pattern's
 * allow for git in a repository whose own config or hooks name programs git would run.
 */
export { fsProgramCheck, isInertSetting, INERT_SETTINGS, READ_HOOKS } from './decide/fs-program-check.js';
export { lexicalPathResolver } from './decide/paths.js';
export { renderSection } from './decide/section.js';
export { lintPolicies, type LintInput, type LintOptions } from './lint/lint.js';
export { rules as lintRules } from './lint/rules/index.js';
export {
  defineRule,
  type MessageTemplate,
  type RuleContext,
  type RuleDefinition,
  type RuleDocs,
  type RuleReport,
} from './lint/rules/define.js';
export type { LintDocument, SelectorRule } from './lint/context.js';
export type { JsonCheckOutput, JsonDiagnostic, JsonLintOutput, LintReport } from './report/report.js';
export { parseCatalog, type CatalogResult, type ToolCatalogEntry } from './catalog/catalog.js';
