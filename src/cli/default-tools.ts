/**
 * The tools `matrix` and `diff` ask about when no `--tools` catalog is given: the reference host's built-in
 * tools with their declared hints, plus `exit_plan_mode` (which the mode engine adds to every deployment). The
 * built-ins are read from their definitions, so this list cannot drift from what the host registers; loading
 * their modules starts nothing.
 * @module
 */
import type { ToolCatalogEntry } from '../compile/catalog.js';
import type { Hints } from '../compile/types.js';
import type { ToolAnnotations } from '../host/types.js';

/**
 * The default catalog.
 * @returns the built-in tools in registration order, then `exit_plan_mode`
 */
export async function defaultToolCatalog(): Promise<ToolCatalogEntry[]> {
  const { builtinTools } = await import('../host/tools/index.js');
  const tools = builtinTools.map((tool) => ({ name: tool.name, hints: toHints(tool.annotations) }));
  const exit = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
  return [...tools, { name: 'exit_plan_mode', hints: toHints(exit) }];
}

function toHints(annotations: ToolAnnotations | undefined): Hints {
  const hints: Hints = {};
  if (annotations?.readOnlyHint !== undefined) hints.readOnly = annotations.readOnlyHint;
  if (annotations?.destructiveHint !== undefined) hints.destructive = annotations.destructiveHint;
  if (annotations?.idempotentHint !== undefined) hints.idempotent = annotations.idempotentHint;
  if (annotations?.openWorldHint !== undefined) hints.openWorld = annotations.openWorldHint;
  return hints;
}
