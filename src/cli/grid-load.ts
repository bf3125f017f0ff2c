/**
 * Loading for `matrix` and `diff`: policy sources compiled into modes, and the tools to ask about. Fails closed
 * like `check`: a side with any load error is not compared (a refused file could have narrowed a mode), and the
 * report says whether that was an unreadable input (exit 2) or an invalid policy (exit 1).
 *
 * A side is loaded as lint loads (the built-in plan first unless `builtin: false`, then each source in order);
 * a source may also be `git:REV:path`, read through git in `cwd`. A built-in plan loaded from a git source is not
 * recognised as the built-in (only real paths are compared): when diffing `policies/plan.yaml` itself, pass
 * `--no-builtin`.
 * @module
 */
import {
  builtinToolCatalog,
  compilePolicies,
  loadCatalog,
  loadPolicySources,
  type CompiledPolicySet,
  type LoadResult,
  type ToolCatalogEntry,
} from '../compile/index.js';
import type { DeploymentEntry } from '../deploy/index.js';
import type { McpConfig } from '../mcp/config.js';
import { gitObjects } from './git-objects.js';
import type { LoadFailedReport } from './grid-report.js';
import { loadFailed } from './inputs.js';
import { resolve } from 'node:path';

/** What `matrix` and `diff` share: the catalog, the built-in, and the folder paths and git resolve from. */
export interface GridOptions {
  /** A tool catalog file (`--tools`); without it, the reference host's built-in tools. */
  catalog?: string;
  /** Load the built-in plan policy first (default true). */
  builtin?: boolean;
  cwd: string;
}

/** One loaded, compiled side. */
export interface LoadedSide {
  load: LoadResult;
  policies: CompiledPolicySet;
}

/** The tools to ask about and where they came from. */
export interface ToolSet {
  tools: ToolCatalogEntry[];
  toolSet: 'catalog' | 'builtin';
}

/**
 * Loads and compiles sources.
 * @param sources paths and `git:REV:path` sources
 * @param options built-in, working folder, and the tool catalog ({@link loadToolSet}) the modes decide with
 * @returns the compiled side, or a load-failed report
 */
export async function loadSide(
  sources: readonly string[],
  options: { builtin: boolean; cwd: string; tools?: readonly ToolCatalogEntry[] },
): Promise<LoadedSide | LoadFailedReport> {
  const { tools, ...rest } = options;
  const load = await loadPolicySources(sources, { ...rest, git: gitObjects(options.cwd) });
  const errors = load.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return loadFailed(errors);
  return { load, policies: compilePolicies(load.documents, tools === undefined ? {} : { tools }) };
}

/**
 * The catalog given with `--tools`, or the built-in tools. With a deployment (`--config`), an MCP tool's hints
 * count only when that deployment trusts its server, as the running agent counts them (see {@link deployedTrust}).
 * Compile with these tools (`compilePolicies(documents, { tools })`): they are the hints of every call that
 * declares none, beside the built-in tools' own.
 * @param file the catalog path, if any
 * @param cwd the folder a relative path resolves from
 * @param config the deployment file (`--config`), if any
 * @returns the tools, or a load-failed report for a catalog or deployment that cannot be used
 */
export async function loadToolSet(
  file: string | undefined,
  cwd: string,
  config?: string,
): Promise<ToolSet | LoadFailedReport> {
  if (file === undefined) return { tools: builtinToolCatalog(), toolSet: 'builtin' };
  const result = await loadCatalog(file, cwd);
  if (result.diagnostics.some((d) => d.severity === 'error')) return loadFailed(result.diagnostics);
  if (config === undefined) return { tools: result.tools, toolSet: 'catalog' };
  // Imported only with `--config`: the deployment reader's validators are large.
  const { readDeployment } = await import('../deploy/index.js');
  const deployment = readDeployment(resolve(cwd, config));
  const errors = deployment.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return loadFailed(errors);
  return { tools: deployedTrust(result.tools, deployment.entries), toolSet: 'catalog' };
}

/**
 * The catalog as a deployment runs it: an MCP tool (`server` given, or a `mcp__<server>__` name) keeps its hints
 * only when one of the deployment's `mcp` entries trusts that server (`trusted: true`, or listed in
 * `trustedEditorServers`). The deployment decides, not the catalog file: the runtime ignores an untrusted
 * server's annotations, and a server the deployment does not run has no trusted annotations in it.
 * @param tools the catalog's tools
 * @param entries the deployment's entries
 * @returns the tools, untrusted hints removed
 */
export function deployedTrust(
  tools: readonly ToolCatalogEntry[],
  entries: readonly DeploymentEntry[],
): ToolCatalogEntry[] {
  const trusted = new Set<string>();
  for (const entry of entries.filter((e) => e.name === 'mcp')) {
    const config = entry.config as McpConfig;
    for (const [name, server] of Object.entries(config.servers ?? {}))
      if (server.trusted === true) trusted.add(name);
    for (const name of config.trustedEditorServers ?? []) trusted.add(name);
  }
  return tools.map((tool) => {
    const server = tool.server ?? /^mcp__(.+?)__/.exec(tool.name)?.[1];
    if (server === undefined || trusted.has(server) || tool.hints === undefined) return tool;
    const { hints: _untrusted, ...rest } = tool;
    return { ...rest, trusted: false };
  });
}
