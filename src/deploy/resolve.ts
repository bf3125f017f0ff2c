/**
 * Resolving a read deployment: each `mode` entry's config is validated, loaded and compiled once, with its inline
 * documents sourced in the deployment file, and the compiled modes travel with the entry to whoever starts it.
 * {@link lintDeployment} is the same pipeline for `dsh-mode lint cordis.yml`, with lint's own severities.
 * @module
 */
import { sortDiagnostics, type CompiledPolicySet, type LintOptions } from '../compile/index.js';
import type { Diagnostic, SourceDocument } from '../compile/types.js';
import { lintModeConfig, resolveModeConfig, type ConfigSource, type ResolvedModes } from './modes.js';
import { diagnostic } from './diagnostic.js';
import { readDeployment, type Deployment, type DeploymentEntry } from './read.js';

/** The plugin name of the mode engine in a deployment. */
export const MODE_PLUGIN = 'mode';

/** An entry ready to start: a `mode` entry carries its compiled modes. */
export interface ResolvedEntry extends DeploymentEntry {
  readonly modes?: ResolvedModes;
}

/** A resolved deployment: the entries, or the errors that refuse it, and every warning. */
export interface ResolvedDeployment {
  entries: ResolvedEntry[];
  diagnostics: Diagnostic[];
}

/**
 * Resolves every `mode` entry of a deployment.
 * @param entries the deployment's entries (read without errors)
 * @returns the entries with their modes, and every finding (errors refuse the deployment)
 */
export async function resolveDeployment(entries: readonly DeploymentEntry[]): Promise<ResolvedDeployment> {
  const diagnostics: Diagnostic[] = [];
  const out: ResolvedEntry[] = [];
  for (const entry of entries) {
    if (entry.name !== MODE_PLUGIN) {
      out.push(entry);
      continue;
    }
    const result = await resolveModeConfig(entry.config, sourceOf(entry));
    for (const d of result.diagnostics) diagnostics.push(d);
    out.push(result.value ? { ...entry, modes: result.value } : entry);
  }
  return { entries: out, diagnostics: sortDiagnostics(diagnostics) };
}

/**
 * Lints a deployment file: its envelope, the inline modes and the policy files it names.
 * @param file the deployment file, as given
 * @param options lint's options (a tool catalog)
 * @returns every diagnostic (lint's with their own severities) and the files read
 */
export async function lintDeployment(
  file: string,
  options: Pick<LintOptions, 'catalog'> = {},
): Promise<{ diagnostics: Diagnostic[]; files: string[] }> {
  const deployment: Deployment = readDeployment(file);
  const diagnostics: Diagnostic[] = [...deployment.diagnostics];
  const files: string[] = [file];
  for (const entry of deployment.entries) {
    if (entry.name !== MODE_PLUGIN) continue;
    const linted = await lintModeConfig(entry.config, sourceOf(entry), options);
    for (const d of [linted.diagnostics, linted.findings].flat()) diagnostics.push(d);
    for (const f of linted.files) if (!files.includes(f)) files.push(f);
  }
  return { diagnostics: sortDiagnostics(diagnostics), files };
}

/** The modes a deployment file runs with, for `check` and `matrix --config`. */
export interface DeploymentPolicies {
  /** The compiled modes, when the deployment and its policies load without error. */
  policies?: CompiledPolicySet;
  /** The documents that compose them, in load order. */
  documents: SourceDocument[];
  /** The deployment file and every policy file it loads. */
  files: string[];
  diagnostics: Diagnostic[];
}

/**
 * Reads and resolves a deployment file for the modes it runs with: those of its first `mode` entry (none
 * without one; a second `mode` entry is refused, since two engines would gate the same tools).
 * @param file the deployment file, as given
 * @returns the compiled modes, or the diagnostics that refuse the deployment
 */
export async function deploymentPolicies(file: string): Promise<DeploymentPolicies> {
  const deployment = readDeployment(file);
  const none = { documents: [], files: [file] };
  if (deployment.diagnostics.some((d) => d.severity === 'error')) {
    return { ...none, diagnostics: deployment.diagnostics };
  }
  const modes = deployment.entries.filter((e) => e.name === MODE_PLUGIN);
  if (modes.length === 0) return { ...none, policies: EMPTY, diagnostics: deployment.diagnostics };
  const [entry, ...more] = modes;
  if (more.length > 0) {
    const second = more[0]!;
    return {
      ...none,
      diagnostics: [
        diagnostic(
          'incomplete-deployment',
          `a second \`mode\` entry (\`${second.id}\`): say which one to ask about`,
          file,
          [],
          second.range,
          'keep one `mode` entry',
        ),
      ],
    };
  }
  const result = await resolveModeConfig(entry!.config, sourceOf(entry!));
  if (!result.value) return { ...none, diagnostics: result.diagnostics };
  const value = result.value;
  const documents = [...value.policies.values()].flatMap((p) => (p.documents ?? []).map((d) => d.source));
  return {
    policies: { modes: value.policies, get: (mode) => value.policies.get(mode) },
    documents: [...new Set(documents)],
    files: [file, ...value.files],
    diagnostics: result.diagnostics,
  };
}

const EMPTY: CompiledPolicySet = { modes: new Map(), get: () => undefined };

/** The entry's place in its file, for the mode config's positions and paths. */
function sourceOf(entry: DeploymentEntry): ConfigSource {
  return { file: entry.file, baseDir: entry.baseDir, locate: entry.locate, keyRange: entry.keyRange };
}
