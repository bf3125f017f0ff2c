/**
 * The MCP servers an ACP client sends with `session/new` and `session/load` (`mcpServers`), handed to the `mcp`
 * plugin for that session. Only stdio servers are supported (the protocol requires them; `initialize` does not
 * advertise http or sse); others are left out. A deployment without the `mcp` plugin ignores them (the embedded
 * default runs the plugin for `acp`, so they start there). Each server's trust is decided by the plugin, by name.
 * What is left out, and why (a server that crashed, hung past its start limit or has no such command too), comes
 * back as warnings, which the agent shows the client.
 * @module
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { Context } from 'cordis';
import type { Session } from '../../host/types.js';
import type { SessionServer } from '../../mcp/plugin.js';

/**
 * Starts a session's servers (each bounded by its start time limit); never throws.
 * @param ctx the deployment's context
 * @param session the session they serve
 * @param servers the request's `mcpServers`
 * @param cwd the session's workspace
 * @returns once every server started or failed: one line per server left out, saying why (also logged)
 */
export async function openSessionServers(
  ctx: Context,
  session: Session,
  servers: readonly acp.McpServer[] | undefined,
  cwd: string,
): Promise<string[]> {
  if (!servers || servers.length === 0) return [];
  const mcp = ctx.get('mcp');
  const warnings: string[] = [];
  const warn = (line: string): void => {
    warnings.push(line);
    ctx.logger('acp').warn(line);
  };
  if (!mcp) {
    warn(`the client's ${servers.length} MCP server(s) are ignored: the deployment has no \`mcp\` plugin`);
    return warnings;
  }
  const stdio: SessionServer[] = [];
  for (const server of servers) {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      warn(`MCP server \`${server.name}\` is left out: only stdio servers are supported`);
      continue;
    }
    const env: Record<string, string> = {};
    for (const variable of server.env ?? []) env[variable.name] = variable.value;
    stdio.push({ name: server.name, command: server.command, args: server.args ?? [], env });
  }
  try {
    warnings.push(...(await mcp.openSession(session, stdio, cwd)));
  } catch (error) {
    // The plugin reports its failures as warnings; anything else must still not take the session down.
    warn(
      `the client's MCP servers could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return warnings;
}

/** Stops a session's servers, if the deployment runs the `mcp` plugin. */
export async function closeSessionServers(ctx: Context, session: Session): Promise<void> {
  await ctx.get('mcp')?.closeSession(session);
}
