/**
 * The one tool catalog a compiled policy decides with: for a call that declares no hints, the hints of the tool of
 * that name. Every decider reads it through the compiled policy (`check`, lint's inline tests, `matrix`, `diff`,
 * the start notices and the gate for a name no plugin registered), so none of them can decide a built-in tool
 * with other hints than the tool's own.
 *
 * The reference host's built-in tools and `exit_plan_mode` are always in it, with the annotations the tools
 * themselves are registered with (`builtin-tools.ts`): the tool's true annotations decide. Other tools (a `--tools`
 * file, a deployment's MCP servers) add their names; an entry that names a built-in tool is ignored for hints,
 * and one that contradicts the built-in's annotations is a warning of `parseCatalog`. A host whose own
 * tool shares a built-in name declares that tool's hints on the call (declared hints always win).
 * @module
 */
import { BUILTIN_TOOL_ANNOTATIONS } from './builtin-tools.js';
import { builtinToolCatalog, type ToolCatalogEntry } from './catalog.js';
import type { Hints } from '../types.js';

/** Hints by tool name, for calls that declare none. */
export interface ToolCatalog {
  /**
   * @param name a tool name as the model calls it
   * @returns the catalogued tool's hints, or undefined when it is not catalogued or declares none (MCP's
   *   defaults apply)
   */
  hintsOf(name: string): Hints | undefined;
}

const BUILTIN_HINTS: ReadonlyMap<string, Hints> = new Map(
  builtinToolCatalog().map((t) => [t.name, Object.freeze({ ...t.hints })]),
);

/**
 * The catalog of the built-in tools and `tools`.
 * @param tools more tools (a `--tools` file, a deployment's); a built-in name among them keeps the built-in's hints
 * @returns the lookup
 */
export function toolCatalog(tools: readonly ToolCatalogEntry[] = []): ToolCatalog {
  const more = new Map<string, Hints>();
  for (const tool of tools) {
    if (BUILTIN_HINTS.has(tool.name) || more.has(tool.name) || tool.hints === undefined) continue;
    more.set(tool.name, Object.freeze({ ...tool.hints }));
  }
  return {
    hintsOf: (name) =>
      Object.hasOwn(BUILTIN_TOOL_ANNOTATIONS, name) ? BUILTIN_HINTS.get(name) : more.get(name),
  };
}

/** The catalog of the built-in tools alone: what a policy compiled without a catalog decides with. */
export const BUILTIN_CATALOG: ToolCatalog = toolCatalog();
