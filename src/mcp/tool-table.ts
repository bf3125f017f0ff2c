/**
 * Which MCP tools are registered in `ctx.tools`, and which server answers a call. A tool is registered once per
 * name (`mcp__<server>__<tool>`) even when several sessions run a server of that name (an editor sends the same
 * servers for every session): each server is a provider of the names it lists, in a scope, the deployment's
 * (every session) or one session's. A call goes to the provider of the caller's session, else the deployment's.
 *
 * The registered schema and hints are the first provider's (the deployment's when it has one). A later provider
 * that lists the same name with another description, schema or trusted hints is left out of that name, with a
 * warning, so one name never means two things. Hints are passed on only from trusted servers: an untrusted
 * server's tools carry no annotations, so the gate and the filter judge them by MCP's defaults.
 * @module
 */
import type { JsonSchema, Session, Tool, ToolAnnotations } from '../host/types.js';
import type { ListedTool, McpServerConnection } from './server.js';

/** The deployment's scope (`null`), or one session's. */
export type Scope = Session | null;

/** One server's listing of one tool. */
interface Provider {
  scope: Scope;
  server: McpServerConnection;
  tool: ListedTool;
  key: string;
}

/** Registers one tool; returns its disposer (throws when `ctx.tools` refuses it). */
export type Register = (tool: Tool) => () => void;

/** The prefix of every MCP tool name. */
export const MCP_PREFIX = 'mcp__';

/** Longest tool name the host accepts (its registry's rule). */
const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The name the model sees for a server's tool. */
export function toolName(server: string, tool: string): string {
  return `${MCP_PREFIX}${server}__${tool}`;
}

/** The four hints of MCP annotations, copied; undefined when the server is not trusted or declares none. */
export function trustedHints(
  annotations: ListedTool['annotations'],
  trusted: boolean,
): ToolAnnotations | undefined {
  if (!trusted || !annotations) return undefined;
  const out: ToolAnnotations = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    if (typeof annotations[key] === 'boolean') out[key] = annotations[key];
  }
  return out;
}

export class ToolTable {
  readonly #providers = new Map<string, Provider[]>();
  readonly #registered = new Map<string, { key: string; dispose: () => void }>();
  readonly #trusted = new WeakMap<McpServerConnection, boolean>();

  constructor(
    private readonly register: Register,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Replaces what one server provides (its first listing, or a new one after `list_changed`).
   * @param scope the deployment (null) or the session the server belongs to
   * @param server the server
   * @param trusted whether its annotations count
   * @param tools its full tool list
   */
  setServer(scope: Scope, server: McpServerConnection, trusted: boolean, tools: readonly ListedTool[]): void {
    this.#trusted.set(server, trusted);
    const touched = this.#drop(server);
    for (const tool of tools) {
      const name = toolName(server.launch.name, tool.name);
      if (!TOOL_NAME.test(name)) {
        this.warn(
          `server \`${server.launch.name}\`: tool \`${tool.name}\` is left out: \`${name}\` is not a usable tool name`,
        );
        continue;
      }
      const key = JSON.stringify([
        tool.description ?? '',
        tool.inputSchema,
        trustedHints(tool.annotations, trusted) ?? null,
      ]);
      const list = this.#providers.get(name) ?? [];
      list.push({ scope, server, tool, key });
      this.#providers.set(name, list);
      touched.add(name);
    }
    for (const name of touched) this.#sync(name);
  }

  /** Removes every tool a server provides (it was closed). */
  removeServer(server: McpServerConnection): void {
    for (const name of this.#drop(server)) this.#sync(name);
  }

  /** True for a registered MCP tool name. */
  has(name: string): boolean {
    return this.#registered.has(name);
  }

  /** The provider that answers `name` for a caller in `session` (its own server first, then the deployment's). */
  pick(name: string, session: Scope): Provider | undefined {
    const registered = this.#registered.get(name);
    const list = this.#providers.get(name);
    if (!registered || !list) return undefined;
    const usable = list.filter((p) => p.key === registered.key);
    return (session && usable.find((p) => p.scope === session)) || usable.find((p) => p.scope === null);
  }

  /** Removes the providers of `server`; returns the names they provided. */
  #drop(server: McpServerConnection): Set<string> {
    const touched = new Set<string>();
    for (const [name, list] of this.#providers) {
      const kept = list.filter((p) => p.server !== server);
      if (kept.length === list.length) continue;
      touched.add(name);
      if (kept.length === 0) this.#providers.delete(name);
      else this.#providers.set(name, kept);
    }
    return touched;
  }

  /** Makes the registration of `name` match its providers. */
  #sync(name: string): void {
    const list = this.#providers.get(name) ?? [];
    const first = list.find((p) => p.scope === null) ?? list[0];
    const current = this.#registered.get(name);
    if (current && current.key !== first?.key) {
      current.dispose();
      this.#registered.delete(name);
    }
    if (!first) return;
    for (const other of list) {
      if (other.key !== first.key) {
        this.warn(
          `server \`${other.server.launch.name}\` lists \`${other.tool.name}\` unlike the server already providing \`${name}\`; its version is left out`,
        );
      }
    }
    if (this.#registered.has(name)) return;
    const dispose = this.#registerTool(name, first);
    if (dispose) this.#registered.set(name, { key: first.key, dispose });
  }

  #registerTool(name: string, provider: Provider): (() => void) | undefined {
    const { tool, server } = provider;
    const annotations = trustedHints(tool.annotations, this.#trusted.get(server) === true);
    const parameters = tool.inputSchema as JsonSchema;
    const make = (schema: JsonSchema): Tool => ({
      name,
      description: tool.description ?? tool.title ?? '',
      parameters: schema,
      ...(annotations ? { annotations } : {}),
      // A card names the server: a title alone ("Read Graph") does not say whose tool runs, and an untrusted
      // server's title could pass for a built-in call.
      present: () => ({ title: tool.title ? `${server.launch.name}: ${tool.title}` : name }),
      execute: async (args, context) => {
        const target = this.pick(name, context.agent?.session ?? null);
        if (!target) return { content: `Error: \`${name}\` is not available in this session`, isError: true };
        const outcome = await target.server.call(target.tool.name, args, context.signal);
        return outcome.isError
          ? {
              content: outcome.text.startsWith('Error') ? outcome.text : `Error: ${outcome.text}`,
              isError: true,
            }
          : { content: outcome.text };
      },
    });
    try {
      return this.register(make(parameters));
    } catch (error) {
      // A `$schema` the host's validator does not know (a newer draft): the schema is still usable without it.
      if (typeof parameters.$schema === 'string') {
        const { $schema: _dropped, ...rest } = parameters;
        try {
          return this.register(make(rest));
        } catch {
          // reported below
        }
      }
      this.warn(`tool \`${name}\` is left out: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}
