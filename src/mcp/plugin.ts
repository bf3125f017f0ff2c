/**
 * The `mcp` plugin: MCP servers as tool sources. The deployment's servers (`servers`) start with the plugin and
 * serve every session; `ctx.mcp.openSession()` adds servers for one session (the ACP client's `mcpServers`) and
 * `closeSession()` stops them. Each tool registers through `ctx.tools.register` as `mcp__<server>__<tool>`, with
 * its description and input schema as the server lists them, every `tools/list` page read, and again after
 * `notifications/tools/list_changed` (the next request's assembly and the gate see the new set).
 *
 * Trust: a server's annotations count as hints only when it is trusted (a deployment server with `trusted: true`,
 * an editor server whose name is in `trustedEditorServers`). Other tools carry no annotations and get MCP's
 * defaults, so plan mode denies them.
 *
 * Failure: a server that cannot start within its time limit is left out with a warning (the plugin still starts);
 * one that exits or stops answering gives the model an error result naming the server and the reason. Disposing
 * the plugin stops every server.
 * @module
 */
import { Service, type Context } from 'cordis';
import type { Assembly, AssembleContext, Session, ToolExec, PreExecuteResult } from '../host/types.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  planServer,
  SERVER_NAME,
  type McpConfig,
  type ServerPlan,
} from './config.js';
import { McpServerConnection } from './server.js';
import { MCP_PREFIX, ToolTable, type Scope } from './tool-table.js';

declare module 'cordis' {
  interface Context {
    mcp: McpService;
  }
}

/** A server an ACP client asks for (stdio). */
export interface SessionServer {
  name: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

export const name = 'mcp';
export const inject: string[] = ['tools'];

/**
 * `ctx.mcp`: the running servers, and the per-session ones. (No `#private` members: cordis hands out the service
 * behind a proxy, and `#` fields cannot be read through one.)
 */
export class McpService extends Service {
  private readonly table_: ToolTable;
  private readonly deployment_: McpServerConnection[] = [];
  private readonly sessions_ = new Map<Session, McpServerConnection[]>();
  private readonly log_: (line: string) => void;
  private readonly warn_: (line: string) => void;
  private disposed_ = false;

  constructor(
    ctx: Context,
    private readonly config: McpConfig,
  ) {
    super(ctx, 'mcp');
    const logger = ctx.logger('mcp');
    this.log_ = (line) => logger.info(line);
    this.warn_ = (line) => logger.warn(line);
    const tools = ctx.tools;
    this.table_ = new ToolTable((tool) => tools.register(tool), this.warn_);
  }

  /** Names of the deployment's servers. */
  get serverNames(): string[] {
    return Object.keys(this.config.servers ?? {});
  }

  /** Starts the deployment's servers (all at once) and registers their tools. */
  async startDeployment(workspace: string): Promise<void> {
    const plans = Object.entries(this.config.servers ?? {}).map(([n, s]) => planServer(n, s, workspace));
    await Promise.all(plans.map((plan) => this.start_(plan, null, this.deployment_)));
  }

  /**
   * Starts one session's servers (an ACP client's `mcpServers`). A name the deployment already uses is skipped
   * (the deployment's server serves the session); trust comes from `trustedEditorServers`, by name.
   * @param session the session they serve
   * @param servers the client's servers
   * @param cwd the session's workspace (the servers' working folder)
   * @returns warnings for the servers left out (also logged), once every start has succeeded or failed
   */
  async openSession(session: Session, servers: readonly SessionServer[], cwd: string): Promise<string[]> {
    const warnings: string[] = [];
    const skip = (text: string) => {
      warnings.push(text);
      this.warn_(text);
    };
    const list = this.sessions_.get(session) ?? [];
    this.sessions_.set(session, list);
    const trusted = new Set(this.config.trustedEditorServers ?? []);
    const plans: ServerPlan[] = [];
    for (const server of servers) {
      if (!SERVER_NAME.test(server.name) || server.name.length > 32) {
        skip(
          `MCP server ${JSON.stringify(server.name)} is left out: use letters, digits, \`-\` and single \`_\``,
        );
      } else if (this.serverNames.includes(server.name)) {
        skip(`MCP server \`${server.name}\` is left out: the deployment runs a server of that name`);
      } else if (
        plans.some((p) => p.launch.name === server.name) ||
        list.some((c) => c.launch.name === server.name)
      ) {
        skip(`MCP server \`${server.name}\` is left out: the session already has a server of that name`);
      } else {
        plans.push({
          trusted: trusted.has(server.name),
          launch: {
            name: server.name,
            command: server.command,
            args: [...server.args],
            env: { ...server.env },
            cwd,
            startTimeoutMs: DEFAULT_START_TIMEOUT_MS,
            callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
          },
        });
      }
    }
    const failures = await Promise.all(plans.map((plan) => this.start_(plan, session, list)));
    for (const failure of failures) if (failure) warnings.push(`${failure}; its tools are left out`);
    return warnings;
  }

  /** Stops one session's servers and removes their tools. */
  async closeSession(session: Session): Promise<void> {
    const list = this.sessions_.get(session);
    this.sessions_.delete(session);
    await Promise.all((list ?? []).map((server) => this.stop_(server)));
  }

  /** True when `name` is an MCP tool the session may see and call (its own servers' and the deployment's). */
  serves(name: string, session: Scope): boolean {
    return this.table_.pick(name, session) !== undefined;
  }

  /** True for a registered MCP tool. */
  isMcpTool(name: string): boolean {
    return name.startsWith(MCP_PREFIX) && this.table_.has(name);
  }

  /** Stops every server. */
  async stopAll(): Promise<void> {
    this.disposed_ = true;
    const all = [...this.deployment_.splice(0), ...[...this.sessions_.values()].flat()];
    this.sessions_.clear();
    await Promise.all(all.map((server) => this.stop_(server)));
  }

  private async start_(plan: ServerPlan, scope: Scope, into: McpServerConnection[]): Promise<string | null> {
    const server = new McpServerConnection(plan.launch, this.log_);
    into.push(server);
    const failure = await server.start();
    if (failure) {
      this.warn_(`${failure}; its tools are left out`);
      return failure;
    }
    const tools = await server.listTools();
    if (!Array.isArray(tools)) {
      this.warn_(`${tools.error}; its tools are left out`);
      return tools.error;
    }
    if (this.disposed_ || (scope !== null && !this.sessions_.has(scope))) {
      await server.close();
      return null;
    }
    this.table_.setServer(scope, server, plan.trusted, tools);
    server.onToolsChanged = (next) => {
      if (!this.disposed_) this.table_.setServer(scope, server, plan.trusted, next);
    };
    return null;
  }

  private async stop_(server: McpServerConnection): Promise<void> {
    server.onToolsChanged = null;
    if (!this.disposed_) this.table_.removeServer(server);
    await server.close();
  }
}

/**
 * Starts the plugin: the deployment's servers, then the filter and the guard that keep a session's servers to
 * that session.
 * @param ctx the plugin's context
 * @param config the plugin config
 */
export async function apply(ctx: Context, config?: McpConfig): Promise<void> {
  const service = new McpService(ctx, config ?? {});
  ctx.effect(() => () => service.stopAll(), 'mcp: stop servers');
  await service.startDeployment(ctx.tools.workspace);
  ctx.on(
    'system-prompt/assemble',
    async (assembly: Assembly, context: AssembleContext, next: () => Promise<Assembly>) => {
      const result = await next();
      const session = context.agent?.session ?? null;
      result.tools = result.tools.filter(
        (t) => !service.isMcpTool(t.name) || service.serves(t.name, session),
      );
      return result;
    },
  );
  ctx.tools.guard((exec: ToolExec): PreExecuteResult => {
    if (!service.isMcpTool(exec.name) || service.serves(exec.name, exec.agent?.session ?? null)) {
      return { kind: 'allow' };
    }
    return { kind: 'deny', reason: `\`${exec.name}\` belongs to another session's MCP server` };
  });
}

/** The plugin object, for `ctx.plugin(McpPlugin, config)`. */
export const McpPlugin = { name, inject, apply };
