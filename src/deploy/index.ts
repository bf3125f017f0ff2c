/**
 * The one layer that reads a deployment: `cordis.yml` read, validated against schema/ and resolved once, with
 * one diagnostic type. See README.md in this folder.
 * @module
 */
export { checkComplete, MODEL_NAMES, type CompleteOptions } from './complete.js';
export {
  diagnostic,
  formatDiagnostics,
  whereOf,
  type DeployCode,
  type DeployDiagnostic,
} from './diagnostic.js';
export {
  DEFAULT_MODE_DESCRIPTION,
  lintModeConfig,
  resolveModeConfig,
  type ConfigSource,
  type LintedModes,
  type ModeConfig,
  type ModeListEntry,
  type ResolvedModes,
  type ResolveResult,
} from './modes.js';
export { fromCwd, parseDeployment, readDeployment, type Deployment, type DeploymentEntry } from './read.js';
export {
  deploymentPolicies,
  lintDeployment,
  type DeploymentPolicies,
  MODE_PLUGIN,
  resolveDeployment,
  type ResolvedDeployment,
  type ResolvedEntry,
} from './resolve.js';
