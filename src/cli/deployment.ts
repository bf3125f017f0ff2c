/**
 * The deployment the apps run: `--config FILE`, else `cordis.yml` in the current folder, else the embedded default
 * (the host with its built-in tools in the workspace, the mode plugin, and the scripted demo model, or the OpenAI
 * model when `DEEPSEEK_API_KEY` is set). Read-only: the file is never written.
 *
 * A found `cordis.yml` loads only when the user trusts its exact content (`dsh-mode trust`, see `trust.ts`);
 * otherwise planning refuses with {@link UntrustedConfigError} (exit code 1) before anything is parsed or started.
 * `--config FILE` is the user naming the file, which counts as trust for that run. Its relative paths resolve from
 * the real folder of the file that was trusted. Whatever the trust, starting prints the notices of
 * `start-notices.ts` (a wider plan, a workspace outside the current folder, another model endpoint).
 *
 * Starting is all or nothing: every entry is checked before anything starts (unknown plugins, bad configs, a
 * missing host or model, each with `file:line:column`), and a plugin that fails while starting takes the whole
 * deployment down before the error is reported. Errors are `DeploymentError` (exit code 2).
 * @module
 */
import { lstatSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { format } from 'node:util';
import { Context, type Fiber } from 'cordis';
import type { Model } from '../host/types.js';
import {
  DeploymentError,
  parseDeployment,
  readDeployment,
  type DeploymentEntry,
  type DeploymentIssue,
} from './deployment-parse.js';
import { PLUGIN_NAMES } from './plugin-names.js';
import type { Runtime, RuntimeAgentInit } from './runtime-types.js';
import { deploymentNotices } from './start-notices.js';
import { readHashed, trustStatus, UntrustedConfigError, type HashedFile } from './trust.js';

export { DeploymentError } from './deployment-parse.js';
export { TrustStoreError, UntrustedConfigError } from './trust.js';

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
  /** `--config`: a deployment file (reported as given). */
  config?: string;
  /** The folder searched for `cordis.yml` when `config` is absent. */
  cwd: string;
  /** Skip the file search and use the embedded default (`npm start`). */
  embedded?: boolean;
  /** The environment (for `DEEPSEEK_API_KEY`, and where the trust records are). */
  env?: NodeJS.ProcessEnv;
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
    const parsed = readDeployment(options.config);
    if (parsed.issues.length > 0) throw new DeploymentError(parsed.issues);
    return { source: options.config, entries: parsed.entries };
  }
  const found = options.embedded ? undefined : findConfig(options.cwd);
  if (found === undefined) return embeddedDeployment(env);
  let hashed: HashedFile;
  try {
    hashed = readHashed(found);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'it links to a file that does not exist' : (error as Error).message;
    throw new DeploymentError([
      { file: found, line: 1, column: 1, message: `cannot read the deployment: ${reason}` },
    ]);
  }
  const status = trustStatus(hashed, env);
  if (status !== 'trusted') throw new UntrustedConfigError(found, status);
  // The bytes that were hashed are the bytes parsed.
  const parsed = parseDeployment(hashed.text, found, dirname(hashed.realPath));
  if (parsed.issues.length > 0) throw new DeploymentError(parsed.issues);
  return { source: found, entries: parsed.entries };
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

/** The embedded default: host, mode plugin, and the demo model (or OpenAI with a key). */
export function embeddedDeployment(env: NodeJS.ProcessEnv): DeploymentPlan {
  const entry = (name: string, config: Record<string, unknown> = {}): DeploymentEntry => {
    const at = { file: EMBEDDED, line: 1, column: 1 };
    return fixedEntry(name, config, at);
  };
  const model = env.DEEPSEEK_API_KEY ? entry('openai') : entry('demo');
  return { source: EMBEDDED, entries: [entry('host'), entry('mode'), model] };
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
  const issues: DeploymentIssue[] = [];
  const plugins = plan.entries.filter((e) => e.spec.kind === 'plugin');
  let models = plan.entries.filter((e) => e.spec.kind === 'model');
  if (options.modelScript !== undefined) {
    const at = { file: '--model-script', line: 1, column: 1 };
    models = [fixedEntry('scripted', { script: resolve(options.modelScript) }, at)];
  }
  const head = { file: plan.source, line: 1, column: 1 };
  if (!plugins.some((e) => e.name === 'host')) {
    issues.push({ ...head, message: 'the deployment has no `host` entry (add `- name: host`)' });
  }
  if (models.length === 0) {
    issues.push({
      ...head,
      message: 'the deployment has no model (add `- name: openai` or `- name: scripted`)',
    });
  }
  for (const extra of models.slice(1)) {
    issues.push({ ...extra.at, message: `a deployment has one model; \`${extra.id}\` is a second one` });
  }
  for (const entry of [...plugins, ...models.slice(0, 1)]) {
    for (const issue of (await entry.spec.check?.(entry)) ?? []) issues.push(issue);
  }
  if (issues.length > 0) throw new DeploymentError(issues);

  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The embedded default widens nothing and names no workspace or endpoint.
  const notices =
    plan.source === EMBEDDED
      ? []
      : await deploymentNotices(plan.entries, {
          cwd: resolve(options.cwd ?? process.cwd()),
          ...(options.forceWorkspace ? { forceWorkspace: true } : {}),
          ...(options.modelScript !== undefined ? { modelScript: true } : {}),
        });
  for (const line of notices) (options.notice ?? log)(line);

  const modelEntry = models[0]!;
  let model: Model;
  try {
    if (modelEntry.spec.kind !== 'model') throw new Error('not a model');
    const factory = await modelEntry.spec.load();
    model = factory(modelEntry.config);
  } catch (error) {
    throw new DeploymentError([
      { ...modelEntry.at, message: `model \`${modelEntry.name}\`: ${message(error)}` },
    ]);
  }

  const ctx = new Context();
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
    const config =
      entry.spec.kind === 'plugin' && entry.spec.prepare ? entry.spec.prepare(entry) : { ...entry.config };
    if (
      entry.spec.kind === 'plugin' &&
      entry.spec.workspace &&
      (options.forceWorkspace || config.workspace === undefined)
    ) {
      config.workspace = options.workspace;
    }
    if (entry.name === 'host' && options.sessionsDir !== undefined) config.sessionsDir = options.sessionsDir;
    try {
      const plugin = entry.spec.kind === 'plugin' ? await entry.spec.load() : null;
      if (plugin) fibers.push(await ctx.plugin(plugin, config));
    } catch (error) {
      await dispose();
      throw new DeploymentError([
        { ...entry.at, message: `plugin \`${entry.id}\` failed to start: ${message(error)}` },
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

/** An entry made in code (embedded default, `--model-script`): every position is `at`. */
function fixedEntry(
  name: string,
  config: Record<string, unknown>,
  at: { file: string; line: number; column: number },
): DeploymentEntry {
  return {
    id: name,
    name,
    spec: PLUGIN_NAMES[name]!,
    config,
    at,
    locate: () => at,
    locateKey: () => at,
    range: () => undefined,
    baseDir: process.cwd(),
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
