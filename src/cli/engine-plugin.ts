/**
 * The deployment loader's bridge to the mode engine: checks a `mode` entry with the engine's own
 * `resolveModeConfig` before anything starts, so policy errors (in cordis.yml's inline `modes` or in the policy
 * files it names) are reported with their file:line:column and the deployment never half-starts.
 * @module
 */
import { resolveModeConfig, type ModeConfig } from '../engine/index.js';
import type { DeploymentEntry, DeploymentIssue } from './deployment-parse.js';

/**
 * Resolves the entry's mode config and returns its errors as deployment issues.
 * @param entry the `mode` entry
 */
export async function checkModeEntry(entry: DeploymentEntry): Promise<DeploymentIssue[]> {
  const config =
    entry.spec.kind === 'plugin' && entry.spec.prepare ? entry.spec.prepare(entry) : entry.config;
  const result = await resolveModeConfig(config as ModeConfig);
  return result.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => ({
      file: d.file ?? entry.at.file,
      line: d.range?.start.line ?? entry.at.line,
      column: d.range?.start.column ?? entry.at.column,
      message: `mode: ${d.message}${d.range || d.path.length === 0 ? '' : ` (at config.${d.path.join('.')})`}`,
    }));
}
