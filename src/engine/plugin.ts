/**
 * The mode engine as one cordis plugin (`export const name = 'mode'`). `apply` is async: it resolves the
 * configuration first (files load asynchronously, and cordis 4's `Config` step must be synchronous), and only
 * then registers anything, so an invalid configuration rejects the `ctx.plugin()` fiber with a
 * {@link ModeConfigError} listing every finding as file:line:column, and the plugin never runs half-configured.
 * A restart of the fiber (cordis re-applies it when `tools` or `systemPrompt` comes back) reuses what its config
 * resolved to and starts synchronously, so no call of a running session is judged without the gate.
 * A deployment resolves its modes before anything starts and applies {@link createModePlugin} with them.
 *
 * Every registration is an effect of the plugin's fiber: disposing it removes the `ctx.modes` service, the
 * `mode:policy` section, the `exit_plan_mode` tool, the gate and all three listeners, and marks the engine
 * disposed so an exit whose approval was still pending fails instead of reporting an exit that never happened
 * (invariant 10).
 *
 * Listeners, both prepended (outermost):
 * - `session/event`: lands pending intents after `turn/start` / `step/end`, narrates; it awaits `next()` first,
 *   so every other listener has seen the boundary before the flip lands, and does nothing for a session with no
 *   intent pending;
 * - `agent/created`: seeds `AgentOptions.mode` as a pending intent, or restores one recorded by an earlier process.
 *
 * What the model sees is filtered by a tool view (`ctx.systemPrompt.view`), which the host applies after the
 * whole `system-prompt/assemble` waterfall: no listener can show a tool the mode hides.
 *
 * The gate is not a listener but a `ctx.tools.guard()`: its verdict is a ceiling the `tools/pre-execute`
 * waterfall can only narrow, whatever order other plugins register their listeners in.
 * @module
 */
import { symbols, type Context } from 'cordis';
import type { Agent, PromptSections, ToolRegistry } from '../host/types.js';
import { formatDiagnostics } from '../deploy/diagnostic.js';
import { resolveModeConfig, type ModeConfig, type ResolvedModes } from '../deploy/modes.js';
import { createBoundaryListener } from './boundary.js';
import { ModeCore } from './core.js';
import { createExitPlanModeTool } from './exit-plan-mode.js';
import { createGate } from './gate.js';
import { seed } from './seed.js';
import { ModesService } from './service.js';
import { createModeSection, createToolView } from './soft-layer.js';
import type { Diagnostic } from '../compile/types.js';
// Type-only: these bring the host's cordis events and service keys into scope (declaration merging). The engine's
// code uses the seams through the interfaces of ../host/types.ts and has no run-time dependency on the host.
import type {} from '../host/agents.js';
import type {} from '../host/sessions.js';
import type {} from '../host/system-prompt.js';
import type {} from '../host/tool-runtime.js';
import type {} from './vocabulary.js';

/** The plugin's name in cordis (and in cordis.yml). */
export const name = 'mode';

/** The host services the engine needs. */
export const inject: string[] = ['tools', 'systemPrompt'];

/** An invalid configuration: the plugin did not start. */
export class ModeConfigError extends Error {
  override readonly name = 'ModeConfigError';

  /** @param diagnostics every finding (the errors are why the plugin refused to start) */
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    super(`invalid mode configuration:\n${formatDiagnostics(errors)}`);
  }
}

/**
 * Starts the engine.
 * @param ctx the plugin's context
 * @param config the plugin config (`policies`, `modes`)
 * @throws {@link ModeConfigError} when the configuration has errors
 */
export async function apply(ctx: Context, config?: ModeConfig): Promise<void> {
  // A restart of the same fiber with the same config (cordis re-applies it when an injected service comes back)
  // starts at once with what that config resolved to. Resolving again would leave the host's tools, which come
  // back in the same tick, running with no gate until the files were read (and with none at all had they become
  // invalid meanwhile). A new `ctx.plugin()` is a new fiber, and a config update a new config: both resolve anew.
  const known = resolvedFor.get(ctx.fiber);
  if (known !== undefined && known.config === config) return start(ctx, known.modes);
  const result = await resolveModeConfig(config);
  if (!result.value) throw new ModeConfigError(result.diagnostics);
  resolvedFor.set(ctx.fiber, { config, modes: result.value });
  start(ctx, result.value);
}

/** What each fiber's config resolved to (weak: it goes with the fiber). Resolved modes are never changed. */
const resolvedFor = new WeakMap<object, { config: unknown; modes: ResolvedModes }>();

/**
 * The plugin for modes resolved already (the deployment loader resolves a cordis.yml once, with its positions);
 * its config is not read.
 * @param modes the resolved modes
 * @returns a plugin object for `ctx.plugin()`
 */
export function createModePlugin(modes: ResolvedModes): {
  name: string;
  inject: string[];
  apply(ctx: Context): void;
} {
  return { name, inject, apply: (ctx: Context) => start(ctx, modes) };
}

function start(ctx: Context, modes: ResolvedModes): void {
  const logger = ctx.logger('mode');
  for (const finding of modes.diagnostics) {
    // At lint's severity: a glob conflict `lint` calls an error is logged as one, though it does not block.
    if (finding.severity === 'error') logger.error(formatDiagnostics([finding]));
    else if (finding.severity === 'warning') logger.warn(formatDiagnostics([finding]));
    else logger.info(formatDiagnostics([finding]));
  }
  // Registrations go through the service proxies, which make them effects of this plugin's fiber.
  const tools: ToolRegistry = ctx.tools;
  const prompt: PromptSections = ctx.systemPrompt;
  // The view and the gate look up every tool at every step: through the registry itself, since each call through
  // cordis's service proxy builds tracing proxies and contexts. Safe to keep: `tools` is injected, so if that
  // service goes away this plugin is disposed with it.
  const registry = (tools as unknown as Record<symbol, ToolRegistry | undefined>)[symbols.original] ?? tools;
  const core = new ModeCore(
    modes,
    (name) => registry.get(name),
    (message) => logger.warn(message),
  );
  ctx.effect(() => () => core.dispose(), 'mode: mark disposed');

  new ModesService(ctx, core);
  prompt.section(createModeSection(core));
  prompt.view(createToolView(core));
  tools.register(createExitPlanModeTool(core));
  ctx.on(
    'session/event',
    createBoundaryListener(core, (message) => logger.warn(message)),
    { prepend: true },
  );
  ctx.on(
    'agent/created',
    (agent: Agent) =>
      seed(
        core,
        agent,
        (message) => logger.error(message),
        (message) => logger.warn(message),
      ),
    { prepend: true },
  );
  tools.guard(createGate(core, tools.workspace));
}

/** The plugin object, for `ctx.plugin(ModePlugin, config)`. */
export const ModePlugin = { name, inject, apply };
