/**
 * The deployment the apps run: `--config FILE`, else `cordis.yml` in the current folder, else the embedded default
 * (the host with its built-in tools in the workspace, the mode plugin, and the scripted demo model, or the OpenAI
 * model when `DEEPSEEK_API_KEY` is set). Read-only: the file is never written.
 *
 * A found `cordis.yml` loads only when the user trusts its exact content and the programs inside the project that
 * it runs (`dsh-mode trust`, see `trust.ts` and `programs.ts`); otherwise planning refuses with
 * {@link UntrustedConfigError} (exit code 1) before anything is parsed or started.
 * `--config FILE` is the user naming the file, which counts as trust for that run. Its relative paths resolve from
 * the real folder of the file that was trusted. Whatever the trust, starting prints the notices of
 * `start-notices.ts` (a wider plan, a workspace outside the current folder, another model endpoint).
 *
 * Reading, validating and resolving the file is src/deploy's (one diagnostic type, positions in the file, the mode
 * config resolved once and handed to the mode plugin). Starting is all or nothing: every entry is checked before
 * anything starts (unknown plugins, bad configs, a missing host or model, each with `file:line:column`), and a
 * plugin that fails while starting takes the whole deployment down before the error is reported. Errors are
 * `DeploymentError` (exit code 2).
 * @module
 */
import { lstatSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { format } from 'node:util';
import { Context, type Fiber } from 'cordis';
import type { Diagnostic, Range } from '../compile/types.js';
import {
  checkComplete,
  diagnostic,
  fromCwd,
  parseDeployment,
  readDeployment,
  resolveDeployment,
  whereOf,
  type DeploymentEntry,
} from '../deploy/index.js';
import type { Model } from '../host/types.js';
import { containListeners } from '../host/contain.js';
import { PLUGIN_NAMES, type PluginSpec } from './plugin-names.js';
import type { Runtime, RuntimeAgentInit } from './runtime-types.js';
import { deploymentNotices } from './start-notices.js';
import { deploymentPrograms } from './programs.js';
import { invocation } from './invocation.js';
import { readHashed, trustStatus, UntrustedConfigError, type HashedFile } from './trust.js';

export { TrustStoreError, UntrustedConfigError } from './trust.js';

/** Thrown when a deployment cannot start; `main` maps it to exit code 2. */
export class DeploymentError extends Error {
  readonly exitCode = 2;
  /** @param diagnostics every error found (nothing stays started) */
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    // A diagnostic with no file (an entry the command line made) is its message alone: no made-up position.
    super(diagnostics.map((d) => (d.file === null ? d.message : `${whereOf(d)}: ${d.message}`)).join('\n'));
    this.name = 'DeploymentError';
  }
}

/** The name of the embedded default in messages. */
export const EMBEDDED = '<embedded default deployment>';

/** Which deployment to run, before it starts. */
export interface DeploymentPlan {
  /** The file, or `EMBEDDED`. */
  source: string;
  entries: DeploymentEntry[];
}

/** Where the deployment comes from. */
export interface PlanOptions {
  /** `--config`: a deployment file, relative to `cwd` (reported as given when `cwd` is the process's folder). */
  config?: string;
  /** The folder searched for `cordis.yml` when `config` is absent. */
  cwd: string;
  /** Skip the file search and use the embedded default (`npm start`). */
  embedded?: boolean;
  /** The environment (for `DEEPSEEK_API_KEY`, and where the trust records are). */
  env?: NodeJS.ProcessEnv;
  /**
   * `--workspace`, when the command line names one: the programs a found file runs are looked for there too,
   * as the servers will start there.
   */
  workspace?: string;
  /** The embedded default also runs the `mcp` plugin, with no servers of its own (`acp`: the client's start). */
  mcp?: boolean;
}

/**
 * Chooses and reads the deployment.
 * @throws {@link DeploymentError} when the file cannot be read or is invalid
 * @throws {@link UntrustedConfigError} when a found `cordis.yml` is not trusted, or changed since it was
 * @throws {@link TrustStoreError} when the trust records cannot be read
 */
export function planDeployment(options: PlanOptions): DeploymentPlan {
  const env = options.env ?? process.env;
  if (options.config !== undefined) {
    // Relative to the command's folder, which is not the process's when a command runs in-process.
    const file = fromCwd(options.config, options.cwd);
    const read = readDeployment(file);
    refuseOnErrors(read.diagnostics);
    return { source: file, entries: read.entries };
  }
  const found = options.embedded ? undefined : findConfig(options.cwd);
  if (found === undefined) return embeddedDeployment(env, { mcp: options.mcp === true });
  let hashed: HashedFile;
  try {
    hashed = readHashed(found);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'it links to a file that does not exist' : (error as Error).message;
    throw new DeploymentError([diagnostic('io', `cannot read the deployment: ${reason}`, found, [], START)]);
  }
  // The bytes that were hashed are the bytes parsed, once their hash is trusted; then the programs it runs are
  // found (reading each) and checked against the record.
  const baseDir = dirname(hashed.realPath);
  let read: ReturnType<typeof parseDeployment> | undefined;
  const parsed = () => (read ??= parseDeployment(hashed.text, found, baseDir));
  const roots = { baseDir, cwd: options.cwd, ...(options.workspace ? { workspace: options.workspace } : {}) };
  const check = trustStatus(hashed, env, () => {
    try {
      return deploymentPrograms(parsed().entries, roots);
    } catch (error) {
      const why = `cannot read a program it runs: ${(error as Error).message}`;
      throw new DeploymentError([diagnostic('io', why, found, [], START)]);
    }
  });
  if (check.status !== 'trusted') throw new UntrustedConfigError(found, check, invocation(env));
  refuseOnErrors(parsed().diagnostics);
  return { source: found, entries: parsed().entries };
}

const START: Range = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

function refuseOnErrors(diagnostics: readonly Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new DeploymentError(errors);
}

/** Any entry named cordis.yml counts (a dangling link too): one that cannot be read is refused, not skipped. */
function findConfig(cwd: string): string | undefined {
  const candidate = resolve(cwd, 'cordis.yml');
  try {
    lstatSync(candidate);
    return candidate;
  } catch {
    return undefined;
  }
}

/**
 * The embedded default: host, mode plugin, and the demo model (or OpenAI with a key); with `mcp`, the `mcp` plugin
 * too, with no servers and none trusted, so an ACP client's servers start untrusted as on any deployment with it.
 */
export function embeddedDeployment(env: NodeJS.ProcessEnv, options: { mcp?: boolean } = {}): DeploymentPlan {
  const entry = (name: string): DeploymentEntry => fixedEntry(name, {}, EMBEDDED);
  const model = env.DEEPSEEK_API_KEY ? entry('openai') : entry('demo');
  const mcp = options.mcp ? [entry('mcp')] : [];
  return { source: EMBEDDED, entries: [entry('host'), entry('mode'), ...mcp, model] };
}

/** How the CLI adjusts a deployment when it starts it. */
export interface StartOptions {
  /** The workspace (`--workspace`, or the current folder); used where the file names none. */
  workspace: string;
  /** The workspace was chosen on the command line (`--workspace`, the demo): it wins over the file's. */
  forceWorkspace?: boolean;
  /** `--model-script`: replace the deployment's model with the scripted model on this file. */
  modelScript?: string;
  /** The host's sessions folder, overriding the default `<workspace>/.dsh/sessions`. */
  sessionsDir?: string;
  /** Where warnings of the plugins go (default stderr). */
  log?: (line: string) => void;
  /** The current folder, for the start notices (default the process's). */
  cwd?: string;
  /** Where the start notices go (default `log`). */
  notice?: (line: string) => void;
}

/**
 * Checks, then starts a deployment.
 * @returns the running deployment
 * @throws {@link DeploymentError} with every problem found; nothing stays started
 */
export async function startDeployment(plan: DeploymentPlan, options: StartOptions): Promise<Runtime> {
  let models = plan.entries.filter((e) => specOf(e).kind === 'model');
  if (options.modelScript !== undefined) {
    models = [fixedEntry('scripted', { script: resolve(options.modelScript) }, '--model-script')];
  }
  // The checks `lint cordis.yml` and `trust` make too: what they pass, this accepts.
  const errors = checkComplete(plan.entries, plan.source, {
    modelReplaced: options.modelScript !== undefined,
  });
  // The mode config is resolved here, once: the notices and the mode plugin use these modes.
  const resolved = await resolveDeployment(plan.entries.filter((e) => specOf(e).kind === 'plugin'));
  for (const d of resolved.diagnostics) if (d.severity === 'error') errors.push(d);
  if (errors.length > 0) throw new DeploymentError(errors);
  const plugins = resolved.entries;

  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The embedded default widens nothing and names no workspace or endpoint.
  const notices =
    plan.source === EMBEDDED
      ? []
      : await deploymentNotices(
          plan.entries.map((e) => plugins.find((p) => p.id === e.id) ?? e),
          {
            cwd: resolve(options.cwd ?? process.cwd()),
            ...(options.forceWorkspace ? { forceWorkspace: true } : {}),
            ...(options.modelScript !== undefined ? { modelScript: true } : {}),
          },
        );
  for (const line of notices) (options.notice ?? log)(line);

  const modelEntry = models[0]!;
  let model: Model;
  try {
    const spec = specOf(modelEntry);
    if (spec.kind !== 'model') throw new Error('not a model');
    const factory = await spec.load();
    model = factory(modelEntry.config);
  } catch (error) {
    // `--model-script FILE` has no entry in a file: the script's own error names FILE (and its line).
    throw new DeploymentError([
      options.modelScript !== undefined
        ? {
            code: 'start-failed',
            severity: 'error',
            message: `--model-script: ${message(error)}`,
            file: null,
            path: [],
          }
        : startFailed(modelEntry, `model \`${modelEntry.name}\`: ${message(error)}`),
    ]);
  }

  const ctx = new Context();
  // Before any plugin: a listener of the host's contained events must not land in cordis's own list.
  containListeners(ctx);
  ctx.logger.exporter({
    export(record) {
      // Errors and warnings only (level 0 and 1); the apps' stdout stays clean.
      if (record.level <= 1) log(`[${record.type}] ${record.name}: ${format(...(record.args as unknown[]))}`);
    },
  });
  const fibers: Fiber[] = [];
  const dispose = async (): Promise<void> => {
    for (const fiber of fibers.splice(0).reverse()) {
      try {
        await fiber.dispose();
      } catch (error) {
        log(`[warn] deployment: disposing a plugin failed: ${message(error)}`);
      }
    }
  };
  for (const entry of plugins) {
    const spec = specOf(entry);
    if (spec.kind !== 'plugin') continue;
    const config = { ...entry.config };
    if (spec.workspace && (options.forceWorkspace || config.workspace === undefined)) {
      config.workspace = options.workspace;
    }
    if (entry.name === 'host' && options.sessionsDir !== undefined) config.sessionsDir = options.sessionsDir;
    try {
      fibers.push(await ctx.plugin(await spec.load(entry), config));
    } catch (error) {
      await dispose();
      throw new DeploymentError([
        startFailed(entry, `plugin \`${entry.id}\` failed to start: ${message(error)}`),
      ]);
    }
  }
  // The host's own workspace: the file's `host.workspace` when it names one and the CLI did not.
  const workspace = resolve(ctx.get('tools')?.workspace ?? options.workspace);
  return {
    ctx,
    workspace,
    model,
    get modes() {
      return ctx.get('modes') ?? undefined;
    },
    get startMode() {
      const modes = ctx.get('modes');
      const plan = modes?.list().some((m) => m.name === 'plan');
      return modelEntry.name === 'demo' && plan ? 'plan' : undefined;
    },
    createAgent(init: RuntimeAgentInit) {
      return ctx.agents.create({
        session: init.session,
        model,
        workspace: init.workspace ?? workspace,
        ...(init.options ? { options: init.options } : {}),
        ...(init.onChunk ? { onChunk: init.onChunk } : {}),
      });
    },
    dispose,
  };
}

/** An entry made in code (embedded default, `--model-script`): every position is the start of `file`. */
function fixedEntry(name: string, config: Record<string, unknown>, file: string): DeploymentEntry {
  return {
    id: name,
    name,
    config,
    file,
    baseDir: process.cwd(),
    range: START,
    locate: () => START,
    keyRange: () => START,
  };
}

/** The registry's spec of an entry (src/deploy accepts only the names the registry has). */
function specOf(entry: DeploymentEntry): PluginSpec {
  const spec = Object.hasOwn(PLUGIN_NAMES, entry.name) ? PLUGIN_NAMES[entry.name] : undefined;
  if (!spec) throw new Error(`no plugin named \`${entry.name}\``);
  return spec;
}

function startFailed(entry: DeploymentEntry, text: string): Diagnostic {
  return diagnostic('start-failed', text, entry.file, [], entry.range);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
