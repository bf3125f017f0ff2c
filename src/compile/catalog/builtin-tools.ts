/**
 * The tools every deployment of the reference host has, with their MCP annotations: the host's built-in tools in
 * registration order, then `exit_plan_mode`, which the mode engine adds. This table is the one place their hints
 * are written: the host's and the engine's tool definitions read their annotations from it, and `matrix`, `diff`
 * and the start notices ask about these tools when no catalog is given (`builtinToolCatalog` in `catalog.ts`). It
 * lives in compile, the lowest layer, so that all of them can import it, and imports nothing.
 * @module
 */
/** MCP `ToolAnnotations`' four hints, all declared. */
export interface BuiltinAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

const READ_ONLY: BuiltinAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Each built-in tool's annotations, by name, in registration order. */
export const BUILTIN_TOOL_ANNOTATIONS = deepFreeze({
  read: READ_ONLY,
  list: READ_ONLY,
  grep: READ_ONLY,
  write: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  edit: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  bash: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  todo_write: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // Not read-only: a mode that allows read-only tools by effect must not offer the exit by accident.
  exit_plan_mode: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
} satisfies Record<string, BuiltinAnnotations>);

function deepFreeze<T extends Record<string, BuiltinAnnotations>>(table: T): Readonly<T> {
  for (const value of Object.values(table)) Object.freeze(value);
  return Object.freeze(table);
}

/**
 * The built-in tools that run programs the host does not know in advance (a script for `bash -c`): the tools a
 * mode's `sandbox` setting applies to. MCP tools run in their server's process and are never in it.
 */
export const BUILTIN_PROGRAM_TOOLS: readonly string[] = Object.freeze(['bash']);

/**
 * Whether a tool runs programs, and so runs under the mode's `sandbox` setting.
 * @param name the tool name as the model sees it (a built-in name, or `mcp__server__tool`)
 * @returns true for a built-in program-running tool
 */
export function runsPrograms(name: string): boolean {
  return BUILTIN_PROGRAM_TOOLS.includes(name);
}
