/**
 * `dsh-mode catalog [--config FILE] [--out FILE]`: the tool catalog of a deployment, for `lint`, `matrix` and
 * `diff --tools`. It lists the host's built-in tools (and `exit_plan_mode` with the mode plugin), then starts every
 * server of each `mcp` entry, reads every page of its `tools/list`, stops it, and adds its tools as
 * `mcp__<server>__<tool>` with `server` and `trusted`. The annotations are written as the server declares them;
 * readers ignore those of an untrusted server (`trusted: false`), as the runtime does. Each tool carries its
 * `inputSchema` (a built-in tool's parameter schema, an MCP tool's as listed), so `lint --tools` can check that an
 * argument rule reads an argument the tool has.
 *
 * The deployment is chosen as `chat` chooses it (`--config`, else a trusted `cordis.yml` here, else the embedded
 * default): starting its servers runs the commands it names. A server that cannot start or list its tools fails
 * the command (exit 2, with the reason and the server's last stderr lines): a partial catalog would hide tools.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import { UsageError } from '../errors.js';
import type { Hints } from '../../compile/types.js';
import type { McpServerConfig } from '../../mcp/config.js';

/** One tool of the written catalog. */
export interface CatalogTool {
  name: string;
  annotations?: Record<string, boolean>;
  /** The tool's parameter schema, as the model sees it: lint checks `argument:` rules against it. */
  inputSchema?: Readonly<Record<string, unknown>>;
  /** The MCP server that provides it (absent for built-in tools). */
  server?: string;
  /** Whether its annotations count as hints (built-in tools are trusted). */
  trusted: boolean;
}

/** Options of {@link runCatalog}. */
export interface RunCatalogOptions {
  config?: string;
  cwd: string;
}

/** The catalog, or what kept it from being complete. */
export type CatalogReport = { kind: 'ok'; tools: CatalogTool[] } | { kind: 'failed'; errors: string[] };

/**
 * Builds a deployment's catalog.
 * @throws DeploymentError, UntrustedConfigError or TrustStoreError from choosing the deployment
 */
export async function runCatalog(options: RunCatalogOptions): Promise<CatalogReport> {
  const [
    { planDeployment },
    { builtinToolCatalog },
    { planServer },
    { McpServerConnection },
    { builtinTools },
    { EXIT_PLAN_MODE_PARAMETERS },
  ] = await Promise.all([
    import('../../apps/deployment.js'),
    import('../../compile/index.js'),
    import('../../mcp/config.js'),
    import('../../mcp/server.js'),
    import('../../host/tools/index.js'),
    import('../../engine/exit-plan-mode.js'),
  ]);
  const schemas = new Map<string, Readonly<Record<string, unknown>>>([
    ...builtinTools.map((t) => [t.name, t.parameters] as const),
    ['exit_plan_mode', EXIT_PLAN_MODE_PARAMETERS],
  ]);
  const plan = planDeployment({ cwd: options.cwd, ...(options.config ? { config: options.config } : {}) });
  const host = plan.entries.find((e) => e.name === 'host');
  const hasMode = plan.entries.some((e) => e.name === 'mode');
  const tools: CatalogTool[] = [];
  for (const tool of builtinToolCatalog()) {
    const builtin = tool.name !== 'exit_plan_mode';
    if (builtin ? host?.config.builtinTools === false || !host : !hasMode) continue;
    const out: CatalogTool = { name: tool.name, annotations: mcpNames(tool.hints ?? {}), trusted: true };
    const schema = schemas.get(tool.name);
    if (schema) out.inputSchema = schema;
    tools.push(out);
  }
  const workspace = resolve(options.cwd, (host?.config.workspace as string | undefined) ?? '.');
  const errors: string[] = [];
  for (const entry of plan.entries.filter((e) => e.name === 'mcp')) {
    // Valid against the schema (the deployment loader checked it).
    const servers = (entry.config.servers ?? {}) as Record<string, McpServerConfig>;
    const started = Object.entries(servers).map(async ([name, server]) => {
      const { launch, trusted } = planServer(name, server, workspace);
      const said: string[] = [];
      const connection = new McpServerConnection(launch, (line) => said.push(line));
      try {
        const failure = await connection.start();
        const listed = failure ? { error: failure } : await connection.listTools();
        if (!Array.isArray(listed)) {
          errors.push([listed.error, ...said.slice(-5).map((l) => `  ${l}`)].join('\n'));
          return [];
        }
        return listed.map((tool) => {
          const out: CatalogTool = { name: `mcp__${name}__${tool.name}`, server: name, trusted };
          const annotations = hintsOnly(tool.annotations);
          if (annotations) out.annotations = annotations;
          if (isObject(tool.inputSchema)) out.inputSchema = tool.inputSchema;
          return out;
        });
      } finally {
        await connection.close();
      }
    });
    for (const listed of await Promise.all(started)) for (const tool of listed) tools.push(tool);
  }
  return errors.length > 0 ? { kind: 'failed', errors } : { kind: 'ok', tools };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mcpNames(hints: Hints): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [short, value] of Object.entries(hints)) if (value !== undefined) out[`${short}Hint`] = value;
  return out;
}

function hintsOnly(annotations: Record<string, unknown> | undefined): Record<string, boolean> | undefined {
  if (!annotations) return undefined;
  const out: Record<string, boolean> = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    if (typeof annotations[key] === 'boolean') out[key] = annotations[key];
  }
  return out;
}

const spec: CommandSpec = {
  name: 'catalog',
  summary: "write a deployment's tool catalog (built-in and MCP tools) for --tools",
  usage: 'catalog [--config FILE] [--out FILE]',
  description: [
    "Lists the deployment's tools: the host's built-in tools, exit_plan_mode with the mode plugin, and every",
    'tool of every MCP server of its `mcp` entries, named mcp__<server>__<tool>. The servers are started, every',
    'page of tools/list is read, and they are stopped. Each MCP tool carries `server` and `trusted`: lint, matrix',
    'and diff ignore the annotations of an untrusted server, as the running agent does. Every tool carries its',
    '`inputSchema`, so lint can check that an argument rule (`argument:`) reads an argument the tool has.',
    '',
    'The deployment is --config FILE, else a trusted cordis.yml in the current folder, else the embedded default.',
    '',
    'Exit codes: 0 the catalog was written; 1 a found cordis.yml that is not trusted; 2 a deployment error, a',
    'server that could not start or list its tools, a file that cannot be written, or a usage error.',
  ].join('\n'),
  options: [
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      description: 'the deployment file (default ./cordis.yml)',
    },
    { name: 'out', type: 'string', value: 'FILE', description: 'write the catalog here (default stdout)' },
  ],
  examples: ['catalog --out tools.json && dsh-mode lint cordis.yml --tools tools.json'],
};

/** The command-line adapter of `catalog`. */
export const command: CliCommand = {
  spec,
  async execute(args, env): Promise<Outcome> {
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument \`${args.positionals[0]}\``);
    const config = stringOption(args, 'config');
    const out = stringOption(args, 'out');
    const { DeploymentError, TrustStoreError, UntrustedConfigError } =
      await import('../../apps/deployment.js');
    let report: CatalogReport;
    try {
      report = await runCatalog({ cwd: env.cwd, ...(config === undefined ? {} : { config }) });
    } catch (error) {
      if (error instanceof UntrustedConfigError)
        return { kind: 'load-failed', stderr: `error: ${error.message}\n` };
      if (error instanceof DeploymentError || error instanceof TrustStoreError) {
        return { kind: 'io', stderr: `error: the deployment cannot start:\n${error.message}\n` };
      }
      throw error;
    }
    if (report.kind === 'failed') {
      return {
        kind: 'io',
        stderr: `${report.errors.map((e) => `error: ${e}`).join('\n')}\nno catalog was written\n`,
      };
    }
    const text = `${JSON.stringify(report.tools, null, 2)}\n`;
    if (out === undefined) return { kind: 'ok', stdout: text };
    try {
      await writeFile(resolve(env.cwd, out), text);
    } catch (error) {
      return { kind: 'io', stderr: `error: cannot write ${out}: ${(error as Error).message}\n` };
    }
    return { kind: 'ok', stderr: `wrote ${report.tools.length} tools to ${out}\n` };
  },
};
