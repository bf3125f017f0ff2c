/**
 * The registry of lint rules: an explicit map from rule id to rule, in sorted key order (a meta-test checks it
 * against the folder, the docs and the tests). To add a rule, see CONTRIBUTING.md.
 * @module
 */
import commandDenyList from './command-deny-list.js';
import conflictingGlobs from './conflicting-globs.js';
import conflictingPatterns from './conflicting-patterns.js';
import defaultDecided from './default-decided.js';
import type { RuleDefinition } from './define.js';
import exitWithoutApproval from './exit-without-approval.js';
import failingTest from './failing-test.js';
import invalidGlob from './invalid-glob.js';
import noOpRule from './no-op-rule.js';
import noOpSandbox from './no-op-sandbox.js';
import override from './override.js';
import patternUnderCeiling from './pattern-under-ceiling.js';
import tooManyAlternatives from './too-many-alternatives.js';
import trapMode from './trap-mode.js';
import unknownArgument from './unknown-argument.js';
import unmatchablePattern from './unmatchable-pattern.js';
import unmatchedRule from './unmatched-rule.js';

/** Every lint rule by id, sorted by id. */
export const rules: Readonly<Record<string, RuleDefinition>> = {
  'command-deny-list': commandDenyList,
  'conflicting-globs': conflictingGlobs,
  'conflicting-patterns': conflictingPatterns,
  'default-decided': defaultDecided,
  'exit-without-approval': exitWithoutApproval,
  'failing-test': failingTest,
  'invalid-glob': invalidGlob,
  'no-op-rule': noOpRule,
  'no-op-sandbox': noOpSandbox,
  override: override,
  'pattern-under-ceiling': patternUnderCeiling,
  'too-many-alternatives': tooManyAlternatives,
  'trap-mode': trapMode,
  'unknown-argument': unknownArgument,
  'unmatchable-pattern': unmatchablePattern,
  'unmatched-rule': unmatchedRule,
};
