/**
 * The plugin names a `cordis.yml` entry may use, each mapped to what it starts. Loading is lazy: a name's module
 * is imported only when a deployment uses it, so `dsh-mode lint` never loads the host, and `chat` never loads
 * the OpenAI adapter unless asked to.
 *
 * Two kinds: `plugin` entries are cordis plugins applied with their config (in file order); `model` entries build
 * the one model every agent of the deployment uses. `paths` names the config keys holding paths, resolved from
 * the deployment file's folder.
 * @module
 */
import type { Plugin } from 'cordis';
import type { Model } from '../host/types.js';
import type { DeploymentEntry, DeploymentIssue } from './deployment-parse.js';

/** A cordis plugin entry. `workspace` marks plugins whose config gets the CLI's workspace when it names none. */
export interface CordisPluginSpec {
  kind: 'plugin';
  description: string;
  paths?: readonly string[];
  workspace?: boolean;
  load(): Promise<Plugin>;
  /** Checks the entry before anything starts. */
  check?(entry: DeploymentEntry): Promise<DeploymentIssue[]>;
  /** The config the plugin receives (default: the entry's config as resolved). */
  prepare?(entry: DeploymentEntry): Record<string, unknown>;
}

/** A model entry: builds the deployment's model from its config. */
export interface ModelSpec {
  kind: 'model';
  description: string;
  paths?: readonly string[];
  load(): Promise<(config: Record<string, unknown>) => Model>;
  /** Checks the entry before anything starts. */
  check?(entry: DeploymentEntry): Promise<DeploymentIssue[]>;
}

export type PluginSpec = CordisPluginSpec | ModelSpec;

/** Every known name, sorted. */
export const PLUGIN_NAMES: Readonly<Record<string, PluginSpec>> = {
  demo: {
    kind: 'model',
    description: 'the scripted demo model (walks through a plan-mode session)',
    async check(entry) {
      return checkKeys(entry, {});
    },
    async load() {
      const [{ scriptedModel }, { DEMO_SCRIPT }] = await Promise.all([
        import('../host/models/index.js'),
        import('./demo/script.js'),
      ]);
      return () => scriptedModel(DEMO_SCRIPT, { name: 'demo' });
    },
  },
  host: {
    kind: 'plugin',
    description:
      'the reference host: sessions, prompt assembly, tool runtime, approval seam, agents, built-in tools',
    paths: ['workspace'],
    workspace: true,
    async check(entry) {
      return checkKeys(entry, { workspace: 'string', sessionsDir: 'string', builtinTools: 'boolean' });
    },
    async load() {
      return (await import('../host/host.js')).HostPlugin as Plugin;
    },
  },
  mode: {
    kind: 'plugin',
    description: 'the mode engine: policies, ctx.modes, the prompt filter, the gate, exit_plan_mode',
    async load() {
      return (await import('../engine/index.js')).ModePlugin as Plugin;
    },
    async check(entry) {
      return (await import('./engine-plugin.js')).checkModeEntry(entry);
    },
    prepare(entry) {
      return { ...entry.config, source: modeSource(entry) };
    },
  },
  openai: {
    kind: 'model',
    description:
      'an OpenAI-compatible chat-completions model (DeepSeek by default; key from DEEPSEEK_API_KEY)',
    async load() {
      const { openaiModel } = await import('../host/models/index.js');
      return (config) => openaiModel(config);
    },
    async check(entry) {
      return checkKeys(entry, {
        baseUrl: 'string',
        model: 'string',
        timeoutMs: 'number',
        maxRetries: 'number',
        backoffMs: 'number',
        extraBody: 'object',
      });
    },
  },
  scripted: {
    kind: 'model',
    description: 'a scripted model answering from a YAML/JSON script file (`script`)',
    paths: ['script'],
    async load() {
      const { scriptedModel, loadScript } = await import('../host/models/index.js');
      return (config) => scriptedModel(loadScript(config.script as string), { name: 'scripted' });
    },
    async check(entry) {
      const issues = await checkKeys(entry, { script: 'string' });
      if (entry.config.script === undefined) {
        issues.push({ ...entry.at, message: '`scripted` needs `config: { script: FILE }`' });
      }
      return issues;
    },
  },
};

/** The mode engine's view of where its config came from, so its findings point into cordis.yml. */
function modeSource(entry: DeploymentEntry): {
  file: string;
  baseDir: string;
  locate(path: (string | number)[]): ReturnType<DeploymentEntry['range']>;
} {
  return { file: entry.at.file, baseDir: entry.baseDir, locate: (path) => entry.range(path) };
}

/**
 * Checks a config's keys and value types (the configs whose plugins have no schema of their own).
 * @param entry the entry
 * @param keys the allowed keys and the `typeof` of their values
 */
async function checkKeys(entry: DeploymentEntry, keys: Record<string, string>): Promise<DeploymentIssue[]> {
  const issues: DeploymentIssue[] = [];
  const known = Object.keys(keys);
  for (const [key, value] of Object.entries(entry.config)) {
    const type = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (type === undefined) {
      const { didYouMean } = await import('./deployment-parse.js');
      const hint = didYouMean(key, known);
      const expected = known.length
        ? `expected ${known.map((k) => `\`${k}\``).join(', ')}`
        : 'it takes no config';
      issues.push({
        ...entry.locateKey([key]),
        message: `unknown config key \`${key}\` of \`${entry.name}\`${hint ? `: did you mean \`${hint}\`?` : ''} (${expected})`,
      });
    } else if (typeof value !== type || value === null || Array.isArray(value)) {
      issues.push({ ...entry.locate([key]), message: `\`${key}\` of \`${entry.name}\` must be a ${type}` });
    }
  }
  return issues;
}
