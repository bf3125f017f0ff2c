/**
 * The built-in tools and the plugin that registers them: read, list, grep, write, edit, bash, todo_write.
 * @module
 */
import type { Context } from 'cordis';
import type { Tool } from '../types.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { grepTool } from './grep.js';
import { listTool } from './list.js';
import { withWorkspaceErrors } from './paths.js';
import { readTool } from './read.js';
import { todoWriteTool } from './todo-write.js';
import { writeTool } from './write.js';

export { bashTool, editTool, grepTool, listTool, readTool, todoWriteTool, writeTool };
export { confine, type WorkspacePath } from './paths.js';

/** Every built-in tool, in registration order. */
export const builtinTools: readonly Tool<never>[] = (
  [readTool, listTool, grepTool, writeTool, editTool, bashTool, todoWriteTool] as Tool<never>[]
).map(withWorkspaceErrors);

/** Registers the built-in tools (optionally only some, by name) for the plugin's lifetime. */
export const BuiltinTools = {
  name: 'dsh-builtin-tools',
  inject: ['tools'],
  apply(ctx: Context, config: { only?: string[] } = {}): void {
    for (const tool of builtinTools) {
      if (!config?.only || config.only.includes(tool.name)) ctx.tools.register(tool);
    }
  },
};
