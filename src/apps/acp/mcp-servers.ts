/**
 * The MCP servers an ACP client sends with `session/new` and `session/load` (`mcpServers`), handed to the `mcp`
 * plugin for that session. Only stdio servers are supported (the protocol requires them; `initialize` does not
 * advertise http or sse); others are skipped with a warning. A deployment without the `mcp` plugin ignores them,
 * with a warning when there were any. Each server's trust is decided by the plugin, by name.
 * @module
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { Context } from 'cordis';
import type { Session } from '../../host/types.js';
import type { SessionServer } from '../../mcp/plugin.js';

/**
 * Starts a session's servers (bounded by each server's start time limit); never throws.
 * @param ctx the deployment's context
 * @param session the session they serve
 * @param servers the request's `mcpServers`
 * @param cwd the session's workspace
 * @param warn where the servers left out are reported (the agent's log)
 */
export async function openSessionServers(
  ctx: Context,
  session: Session,
  servers: readonly acp.McpServer[] | undefined,
  cwd: string,
  warn: (line: string) => void,
): Promise<void> {
  if (!servers || servers.length === 0) return;
  const mcp = ctx.get('mcp');
  if (!mcp) {
    warn(`the client's ${servers.length} MCP server(s) are ignored: the deployment has no \`mcp\` plugin`);
    return;
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
  await mcp.openSession(session, stdio, cwd);
}

/** Stops a session's servers, if the deployment runs the `mcp` plugin. */
export async function closeSessionServers(ctx: Context, session: Session): Promise<void> {
  await ctx.get('mcp')?.closeSession(session);
}
