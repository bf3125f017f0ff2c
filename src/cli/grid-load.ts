/**
 * Loading for `matrix` and `diff`: policy sources compiled into modes, and the tools to ask about. Fails closed
 * like `check`: a side with any load error is not compared (a refused file could have narrowed a mode), and the
 * report says whether that was an unreadable input (exit 2) or an invalid policy (exit 1).
 * @module
 */
import type { ToolCatalogEntry } from '../compile/catalog.js';
import { compilePolicies, type CompiledPolicySet } from '../compile/compile.js';
import type { LoadResult } from '../compile/load.js';
import type { Diagnostic } from '../compile/types.js';
import { IO_CODES, readCatalog } from './commands/lint.js';
import { defaultToolCatalog } from './default-tools.js';
import type { LoadFailedReport } from './grid-report.js';
import { loadSources } from './policy-source.js';

/** What `matrix` and `diff` share: the catalog, the built-in, and the folder git runs in. */
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
  const load = await loadSources(sources, options);
  const errors = load.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return failed(errors);
  return { load, policies: compilePolicies(load.documents) };
}

/**
 * The catalog given with `--tools`, or the default tools.
 * @param file the catalog path, if any
 * @returns the tools, or a load-failed report for a catalog that cannot be used
 */
export async function loadToolSet(file: string | undefined): Promise<ToolSet | LoadFailedReport> {
  if (file === undefined) return { tools: await defaultToolCatalog(), toolSet: 'builtin' };
  const result = await readCatalog(file);
  if (result.diagnostics.some((d) => d.severity === 'error')) return failed(result.diagnostics);
  return { tools: result.tools, toolSet: 'catalog' };
}

function failed(diagnostics: Diagnostic[]): LoadFailedReport {
  return { kind: 'load-failed', diagnostics, io: diagnostics.some((d) => IO_CODES.has(d.code)) };
}
