/**
 * One MCP server over stdio, as a client sees it: started with a time limit, its tools listed page by page
 * (`nextCursor`), re-listed on `notifications/tools/list_changed`, called with a time limit, and closed.
 *
 * Failure never throws out of a call: a server that cannot start, exits, or does not answer in time leaves the
 * connection `failed` with a reason, and every later call gets that reason as an error. The server's stderr is
 * piped (never inherited, so it cannot reach the terminal's stdout or an ACP client's protocol stream) and sent
 * to `log` line by line; its last lines are kept so a crash can say what the server said before it went.
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

/** What starts a server. */
export interface ServerLaunch {
  name: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  startTimeoutMs: number;
  callTimeoutMs: number;
}

/** One tool as the server lists it (the fields that matter here). */
export type ListedTool = Pick<McpTool, 'name' | 'description' | 'inputSchema' | 'annotations' | 'title'>;

/** What a call returns: the text for the model, and whether it is an error. */
export interface CallOutcome {
  text: string;
  isError: boolean;
}

/** Most pages read from one `tools/list`: a server that keeps answering with a cursor is cut off here. */
export const MAX_PAGES = 100;
/** Longest tool result passed on to the model, in characters. */
const MAX_RESULT = 256 * 1024;
/** How many of the server's last stderr lines a crash report quotes. */
const KEPT_LINES = 5;

/** A running (or failed) MCP server. */
export class McpServerConnection {
  #client: Client | null = null;
  #transport: StdioClientTransport | null = null;
  #failure: string | null = null;
  #closing = false;
  #stderr: string[] = [];
  #pid: number | null = null;
  #exited = false;
  /** The re-listing a `list_changed` started, so the call that caused it returns only once the new set is in. */
  #relisting: Promise<void> = Promise.resolve();
  /** Called after the server said its tools changed (the new full list, or an error reason). */
  onToolsChanged: ((tools: ListedTool[]) => void) | null = null;

  constructor(
    readonly launch: ServerLaunch,
    private readonly log: (line: string) => void,
  ) {}

  /** Why the server is unusable, or null while it runs. */
  get failure(): string | null {
    return this.#failure;
  }

  /**
   * Starts the server and completes the MCP handshake within `startTimeoutMs`.
   * @returns null on success, else the reason it failed (the connection stays failed)
   */
  async start(): Promise<string | null> {
    const { launch } = this;
    const transport = new StdioClientTransport({
      command: launch.command,
      args: [...launch.args],
      env: { ...launch.env },
      cwd: launch.cwd,
      stderr: 'pipe',
    });
    this.#transport = transport;
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const line of lines) this.#stderrLine(line);
    });
    const client = new Client({ name: 'dsh-mode', version: '0.1.0' }, { capabilities: {} });
    client.onclose = () => {
      this.#exited = true;
      if (partial) this.#stderrLine(partial);
      partial = '';
      if (!this.#closing) this.#fail(`the server \`${launch.name}\` exited or closed its connection`);
    };
    client.onerror = (error) => this.log(`server \`${launch.name}\`: ${error.message}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      const relist = async (): Promise<void> => {
        const tools = await this.listTools();
        if (Array.isArray(tools)) this.onToolsChanged?.(tools);
        else this.log(`server \`${launch.name}\`: re-listing its tools failed: ${tools.error}`);
      };
      this.#relisting = this.#relisting
        .then(relist)
        .catch((error: unknown) =>
          this.log(`server \`${launch.name}\`: re-listing failed: ${messageOf(error)}`),
        );
      return this.#relisting;
    });
    this.#client = client;
    const connecting = client.connect(transport, { timeout: launch.startTimeoutMs });
    // The transport spawns synchronously within connect(): remember the pid, since a failed connect lets the SDK
    // forget its process before it is gone.
    this.#pid = transport.pid;
    try {
      await connecting;
    } catch (error) {
      const reason = isTimeout(error)
        ? `the server \`${launch.name}\` did not start within ${launch.startTimeoutMs} ms`
        : `the server \`${launch.name}\` failed to start: ${messageOf(error)}`;
      this.#fail(reason);
      await this.close();
      return this.#failure;
    }
    return null;
  }

  /**
   * Every tool of every page of `tools/list`.
   * @returns the tools, or the reason listing failed
   */
  async listTools(): Promise<ListedTool[] | { error: string }> {
    const client = this.#client;
    if (!client || this.#failure) return { error: this.#failure ?? 'the server is not running' };
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result: Awaited<ReturnType<Client['listTools']>>;
      try {
        result = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.launch.callTimeoutMs,
        });
      } catch (error) {
        return { error: this.#describe(error, 'tools/list') };
      }
      for (const tool of result.tools) tools.push(tool);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    return { error: `the server \`${this.launch.name}\` sent more than ${MAX_PAGES} pages of tools` };
  }

  /**
   * Calls one tool.
   * @param tool the server's own tool name
   * @param args the arguments
   * @param signal aborts the call (the server is told it was cancelled)
   * @returns the result text; a failure of the server is an error outcome, never a rejection
   */
  async call(tool: string, args: unknown, signal?: AbortSignal): Promise<CallOutcome> {
    const client = this.#client;
    if (!client || this.#failure) {
      return { text: this.#failure ?? `the server \`${this.launch.name}\` is not running`, isError: true };
    }
    try {
      const result = await client.callTool({ name: tool, arguments: isRecord(args) ? args : {} }, undefined, {
        timeout: this.launch.callTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      // A notification sent before the answer was handled first: the next request sees the tools it announced.
      await this.#relisting;
      return { text: resultText(result.content), isError: result.isError === true };
    } catch (error) {
      return { text: this.#describe(error, `\`${tool}\``), isError: true };
    }
  }

  /** Stops the server (stdin closed, then SIGTERM, then SIGKILL) and waits for it. */
  async close(): Promise<void> {
    this.#closing = true;
    const client = this.#client;
    this.#client = null;
    try {
      if (client) await client.close();
      else await this.#transport?.close();
    } catch (error) {
      this.log(`server \`${this.launch.name}\`: closing failed: ${messageOf(error)}`);
    }
    if (this.#pid !== null) await stopProcess(this.#pid, () => this.#exited);
    this.#pid = null;
    this.#failure ??= `the server \`${this.launch.name}\` was shut down`;
  }

  #stderrLine(line: string): void {
    if (line === '') return;
    this.#stderr.push(line);
    if (this.#stderr.length > KEPT_LINES) this.#stderr.shift();
    this.log(`server \`${this.launch.name}\` (stderr): ${line}`);
  }

  #fail(reason: string): void {
    if (this.#failure) return;
    const said = this.#stderr.length > 0 ? `; its last stderr line: ${this.#stderr.at(-1)}` : '';
    this.#failure = `${reason}${said}`;
    this.log(this.#failure);
  }

  #describe(error: unknown, what: string): string {
    if (this.#failure) return this.#failure;
    if (isTimeout(error)) {
      return `the server \`${this.launch.name}\` did not answer ${what} within ${this.launch.callTimeoutMs} ms`;
    }
    if (isClosed(error)) {
      this.#fail(`the server \`${this.launch.name}\` exited or closed its connection during ${what}`);
      return this.#failure!;
    }
    return `the server \`${this.launch.name}\` answered ${what} with an error: ${messageOf(error)}`;
  }
}

/** The model's text of a `tools/call` result: text parts as they are, other parts named. */
export function resultText(content: unknown): string {
  const parts: string[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else if (part.type === 'resource' && isRecord(part.resource)) {
      const r = part.resource;
      parts.push(typeof r.text === 'string' ? r.text : `[resource ${String(r.uri)}]`);
    } else if (part.type === 'resource_link') parts.push(`[resource ${String(part.uri)}]`);
    else
      parts.push(`[${String(part.type)} ${typeof part.mimeType === 'string' ? part.mimeType : ''}]`.trim());
  }
  const text = parts.join('\n');
  return text.length > MAX_RESULT
    ? `${text.slice(0, MAX_RESULT)}\n[… cut at ${MAX_RESULT} characters]`
    : text;
}

/**
 * Ends a process that outlived its transport's close (SIGTERM, then SIGKILL after a second). Only a process whose
 * exit was not seen is signalled, so a pid the system has since reused is never touched.
 */
async function stopProcess(pid: number, exited: () => boolean): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(pid, name);
    } catch {
      // ESRCH: it is gone already.
    }
  };
  if (exited()) return;
  signal('SIGTERM');
  for (let waited = 0; waited < 1000 && !exited(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (!exited()) signal('SIGKILL');
}

function isTimeout(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32001;
}

function isClosed(error: unknown): boolean {
  return (error as { code?: unknown })?.code === -32000;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
