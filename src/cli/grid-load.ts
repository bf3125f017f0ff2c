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
import { gitObjects } from './git-objects.js';
import type { LoadFailedReport } from './grid-report.js';
import { loadFailed } from './inputs.js';

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
 * @param options built-in and working folder
 * @returns the compiled side, or a load-failed report
 */
export async function loadSide(
  sources: readonly string[],
  options: { builtin: boolean; cwd: string },
): Promise<LoadedSide | LoadFailedReport> {
  const load = await loadPolicySources(sources, { ...options, git: gitObjects(options.cwd) });
  const errors = load.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return loadFailed(errors);
  return { load, policies: compilePolicies(load.documents) };
}

/**
 * The catalog given with `--tools`, or the built-in tools.
 * @param file the catalog path, if any
 * @param cwd the folder a relative path resolves from
 * @returns the tools, or a load-failed report for a catalog that cannot be used
 */
export async function loadToolSet(
  file: string | undefined,
  cwd: string,
): Promise<ToolSet | LoadFailedReport> {
  if (file === undefined) return { tools: builtinToolCatalog(), toolSet: 'builtin' };
  const result = await loadCatalog(file, cwd);
  if (result.diagnostics.some((d) => d.severity === 'error')) return loadFailed(result.diagnostics);
  return { tools: result.tools, toolSet: 'catalog' };
}
