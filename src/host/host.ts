/**
 * Builds the whole reference host on a context: sessions, prompt assembly, tool runtime, approval seam, agents,
 * and (unless turned off) the built-in tools. Each part is its own small plugin; this only wires them.
 * @module
 */
import type { Context, Fiber } from 'cordis';
import { AgentsService } from './agents.js';
import { ApprovalService } from './approval.js';
import { SessionsService } from './sessions.js';
import { SystemPromptService } from './system-prompt.js';
import { ToolsService, type ToolsConfig } from './tool-runtime.js';
import { BuiltinTools } from './tools/index.js';

/** Config of the host. */
export interface HostConfig {
  /** The workspace root: file tools are confined to it; sessions go under `<workspace>/.dsh/sessions`. */
  workspace: string;
  /** Override of the sessions folder (relative to the workspace). */
  sessionsDir?: string;
  /** Register read, list, grep, write, edit, bash, todo_write (default true). */
  builtinTools?: boolean;
  /** Whether the OS sandbox can start here (`ToolsConfig.sandboxSupport`); default one probe per process. */
  sandboxSupport?: ToolsConfig['sandboxSupport'];
}

/**
 * Applies the host plugins to `ctx` and waits until they are active.
 * @returns the fibers, in application order (dispose them to take the host down)
 */
export async function applyHost(ctx: Context, config: HostConfig): Promise<Fiber[]> {
  const fibers: Fiber[] = [];
  fibers.push(await ctx.plugin(SessionsService, { workspace: config.workspace, dir: config.sessionsDir }));
  fibers.push(await ctx.plugin(SystemPromptService));
  fibers.push(
    await ctx.plugin(ToolsService, {
      workspace: config.workspace,
      ...(config.sandboxSupport ? { sandboxSupport: config.sandboxSupport } : {}),
    }),
  );
  fibers.push(await ctx.plugin(ApprovalService));
  fibers.push(await ctx.plugin(AgentsService));
  if (config.builtinTools !== false) fibers.push(await ctx.plugin(BuiltinTools));
  return fibers;
}

/** The host as one plugin: `ctx.plugin(HostPlugin, { workspace })`. */
export const HostPlugin = {
  name: 'dsh-host',
  // Resolves to nothing: cordis reads a plugin's resolved value as its cleanup.
  async apply(ctx: Context, config: HostConfig): Promise<void> {
    await applyHost(ctx, config);
  },
};
