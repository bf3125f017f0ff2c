/**
 * The policy compiler's public API: parse → validate → compile (and lint, in lint.ts). Pure except `load.ts`.
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
} from './schema-types.generated.js';
export { policySchema } from './schema-data.generated.js';
export { hasErrors, sortDiagnostics, type LoadCode, type LoadDiagnostic } from './diagnostics.js';
export {
  MAX_ALIAS_COUNT,
  MAX_DEPTH,
  MAX_POLICY_BYTES,
  parsePolicyText,
  type ParsedDocument,
} from './parse.js';
export { policyValidator, validatePolicy, type ValidateResult } from './validate.js';
export {
  BUILTIN_PLAN_PATH,
  loadPolicySources,
  loadPolicyText,
  type LoadOptions,
  type LoadResult,
} from './load.js';
export {
  countLiterals,
  expandBraces,
  MAX_BRACE_ALTERNATIVES,
  MAX_COMPILED_ALTERNATIVES,
  parseSelector,
  type ParsedSelector,
  type SelectorAlternative,
} from './glob.js';
export {
  compareRestrictiveness,
  compileDocument,
  effectiveHints,
  HINT_NAMES,
  resolveInDocument,
  type ResolveOptions,
} from './document.js';
export {
  compilePolicies,
  composePolicy,
  DEFAULT_DENY_RULE,
  resolveComposed,
  type CompiledPolicySet,
} from './compile.js';
export { editDistance, suggest } from './suggest.js';
export { lintPolicies, type LintInput, type LintOptions } from './lint.js';
export { parseCatalog, type CatalogResult, type ToolCatalogEntry } from './catalog.js';
