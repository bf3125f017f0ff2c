/**
 * The compiler as the other layers of src/ see it: the one module they import (`test/architecture.test.ts` holds
 * them to it), so what crosses the boundary is listed in one place. The package's public entry point is `api.ts`
 * (`dsh-mode/compile`); this list is wider, and is not API.
 * @module
 */
export { BUILTIN_TOOL_ANNOTATIONS, runsPrograms } from './catalog/builtin-tools.js';
export {
  builtinToolCatalog,
  hintsOfAnnotations,
  loadCatalog,
  type ToolCatalogEntry,
} from './catalog/catalog.js';
export { compilePolicies, type CompiledPolicySet } from './decide/compile.js';
export { HINT_NAMES } from './decide/document.js';
export { fsPathResolver } from './decide/fs-path-resolver.js';
export { fsProgramCheck } from './decide/fs-program-check.js';
export { compareRestrictiveness } from './decide/restrictiveness.js';
export { describePath, schemaDiagnostics } from './language/ajv-errors.js';
export { BUILTIN_PLAN_PATH, loadPolicySources, type LoadResult } from './language/load.js';
export { BUILTIN_PLAN_LABEL, shownFile } from './builtin-plan.js';
export { parsePolicyText } from './language/parse.js';
export { type ModeConfig } from './language/schema-types.generated.js';
export { isPolicyFileName, MAX_POLICY_BYTES, type GitAnswer, type GitObjects } from './language/source.js';
export { suggest } from './language/suggest.js';
export { validatePolicy } from './language/validate.js';
export { lintPolicies, type LintOptions } from './lint/lint.js';
export { rules } from './lint/rules/index.js';
export { hasErrors, makeDiagnostic, sortDiagnostics, type LoadCode } from './language/diagnostics.js';
export {
  argumentRows,
  argumentRulesOf,
  changedArgumentRules,
  collectToolRows,
  hintProbes,
  isReadOnlyProbe,
  modeNames,
  type Cell,
  type ToolRow,
  type ToolSource,
} from './report/grid.js';
export {
  type JsonCheckOutput,
  type JsonDiagnostic,
  type JsonLintOutput,
  type JsonRuleRef,
  type LintReport,
} from './report/report.js';
export { findWidenings } from './report/widenings.js';
export {
  exactDiff,
  type ExactCall,
  type ExactDiff,
  type ExactFinding,
  type ExactLimit,
  type Judge,
} from './report/escalations.js';
export {
  DEFAULT_MODE,
  type CallDecision,
  type CommandDecision,
  type CompiledPolicy,
  type DecideCallOptions,
  type Decision,
  type Diagnostic,
  type HintName,
  type Hints,
  type JsonPath,
  type PathResolver,
  type ProgramCheck,
  type Range,
  type RuleRef,
  type SandboxKind,
  type SandboxSetting,
  type Severity,
  type SourceDocument,
} from './types.js';
