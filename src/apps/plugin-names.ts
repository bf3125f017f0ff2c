/**
 * The plugin names a `cordis.yml` entry may use, each mapped to what it starts. Loading is lazy: a name's module
 * is imported only when a deployment uses it, so `dsh-mode lint` never loads the host, and `chat` never loads
 * the OpenAI adapter unless asked to. What each entry's config may hold is schema/cordis.schema.json's to say
 * (checked by src/deploy before anything here runs); a test keeps these names and the schema's the same.
 *
 * Two kinds: `plugin` entries are cordis plugins applied with their config (in file order); `model` entries build
 * the one model every agent of the deployment uses.
 * @module
 */
import type { Plugin } from 'cordis';
import type { ResolvedEntry } from '../deploy/index.js';
import type { Model } from '../host/types.js';

/** A cordis plugin entry. `workspace` marks plugins whose config gets the CLI's workspace when it names none. */
export interface CordisPluginSpec {
  kind: 'plugin';
  description: string;
  workspace?: boolean;
  /** The plugin to apply for this entry (the mode plugin gets the entry's resolved modes). */
  load(entry: ResolvedEntry): Promise<Plugin>;
}

/** A model entry: builds the deployment's model from its config. */
export interface ModelSpec {
  kind: 'model';
  description: string;
  load(): Promise<(config: Record<string, unknown>) => Model>;
}

export type PluginSpec = CordisPluginSpec | ModelSpec;

/** Every known name, sorted. */
export const PLUGIN_NAMES: Readonly<Record<string, PluginSpec>> = {
  demo: {
    kind: 'model',
    description:
      'the scripted demo model (the plan-mode walk-through of `npm start`; elsewhere it explores the folder and changes nothing)',
    async load() {
      const { demoModel } = await import('./demo/script.js');
      return () => demoModel();
    },
  },
  host: {
    kind: 'plugin',
    description:
      'the reference host: sessions, prompt assembly, tool runtime, approval seam, agents, built-in tools',
    workspace: true,
    async load() {
      return (await import('../host/host.js')).HostPlugin as Plugin;
    },
  },
  mcp: {
    kind: 'plugin',
    description:
      'MCP servers over stdio as tools (`mcp__<server>__<tool>`; hints count only from trusted servers)',
    async load() {
      return (await import('../mcp/plugin.js')).McpPlugin as Plugin;
    },
  },
  mode: {
    kind: 'plugin',
    description: 'the mode engine: policies, ctx.modes, the prompt filter, the gate, exit_plan_mode',
    async load(entry) {
      if (!entry.modes) throw new Error('its modes were not resolved');
      return (await import('../engine/plugin.js')).createModePlugin(entry.modes) as Plugin;
    },
  },
  openai: {
    kind: 'model',
    description:
      'an OpenAI-compatible chat-completions model (DeepSeek by default; key from `apiKey` or the variable `apiKeyEnv` names, DEEPSEEK_API_KEY)',
    async load() {
      const { openaiModel } = await import('../host/models/index.js');
      return (config) => openaiModel(config);
    },
  },
  scripted: {
    kind: 'model',
    description: 'a scripted model answering from a YAML/JSON script file (`script`)',
    async load() {
      const { scriptedModel, loadScript } = await import('../host/models/index.js');
      return (config) => scriptedModel(loadScript(config.script as string), { name: 'scripted' });
    },
  },
};
