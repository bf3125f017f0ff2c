/**
 * The mode engine as one cordis plugin (`export const name = 'mode'`). `apply` is async: it resolves the
 * configuration first (files load asynchronously, and cordis 4's `Config` step must be synchronous), and only
 * then registers anything, so an invalid configuration rejects the `ctx.plugin()` fiber with a
 * {@link ModeConfigError} listing every finding as file:line:column, and the plugin never runs half-configured.
 *
 * Every registration is an effect of the plugin's fiber: disposing it removes the `ctx.modes` service, the
 * `mode:policy` section, the `exit_plan_mode` tool and all four listeners, and marks the engine disposed so an exit
 * whose approval was still pending fails instead of reporting an exit that never happened (invariant 10).
 *
 * Listeners, all prepended (outermost):
 * - `session/event`: lands pending intents after `turn/start` / `step/end` (after `await next()`), narrates;
 * - `agent/created`: seeds `AgentOptions.mode` as a pending intent, or restores one recorded by an earlier process;
 * - `system-prompt/assemble`: filters the tools after `await next()`, so inner additions are filtered too.
 *
 * The gate is not a listener but a `ctx.tools.guard()`: its verdict is a ceiling the `tools/pre-execute`
 * waterfall can only narrow, whatever order other plugins register their listeners in.
 * @module
 */
import { symbols, type Context } from 'cordis';
import type { Agent, Session } from '../host/types.js';
import { formatDiagnostics, resolveModeConfig, type ModeConfig } from './config.js';
import { createBoundaryListener } from './boundary.js';
import { ModeCore } from './core.js';
import { createExitPlanModeTool } from './exit-plan-mode.js';
import { MALFORMED_MODE } from './fold.js';
import { createGate } from './gate.js';
import { intentPath, readIntent, type StoredIntent } from './intent-file.js';
import { ModesService, requestFlip } from './service.js';
import { createAssembleFilter, createModeSection } from './soft-layer.js';
import type { Diagnostic } from '../compile/types.js';
// Type-only: these bring the host's cordis events and services into scope (declaration merging) without any
// run-time dependency on the host's implementation (DESIGN.md section 1).
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
 * @param config the plugin config (`policies`, `modes`, and the loader's `source`)
 * @throws {@link ModeConfigError} when the configuration has errors
 */
export async function apply(ctx: Context, config?: ModeConfig): Promise<void> {
  const result = await resolveModeConfig(config);
  if (!result.value) throw new ModeConfigError(result.diagnostics);
  const logger = ctx.logger('mode');
  for (const finding of result.diagnostics) {
    if (finding.severity === 'warning') logger.warn(formatDiagnostics([finding]));
    else logger.info(formatDiagnostics([finding]));
  }
  const tools = ctx.tools;
  // cordis wraps a service in a traceable proxy that costs ~20 µs per method call; the lookup runs for every tool
  // at every step and is a plain Map read, so it uses the service itself. Safe to capture: `tools` is injected,
  // so if that service goes away this plugin is disposed with it.
  const registry = (tools as unknown as Record<symbol, typeof tools | undefined>)[symbols.original] ?? tools;
  const core = new ModeCore(
    result.value,
    (tool) => registry.get(tool),
    (message) => logger.warn(message),
  );
  ctx.effect(() => () => core.dispose(), 'mode: mark disposed');

  new ModesService(ctx, core);
  ctx.systemPrompt.section(createModeSection(core));
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
  ctx.on('system-prompt/assemble', createAssembleFilter(core), { prepend: true });
  ctx.tools.guard(createGate(core));
}

/**
 * Seeds `AgentOptions.mode` (invariant 8), or else restores the user flip recorded beside the session's journal by
 * an earlier process. An unknown mode is still seeded, after a loud error: it then lands and fails closed
 * (everything denied, `get()` says `defined: false`) rather than silently running unrestricted.
 */
function seed(
  core: ModeCore,
  agent: Agent,
  error: (message: string) => void,
  warn: (message: string) => void,
): void {
  const session = agent.session;
  const mode = agent.options.mode;
  if (mode === undefined) {
    restore(core, session, error, warn);
    return;
  }
  // The explicit option wins over a recorded intent, which must not come back in a later process either.
  core.forget(session);
  if (!core.isDefined(mode)) {
    error(
      `agent ${agent.id} asks for unknown mode \`${mode}\` (available: ${available(core)}); every tool will be denied`,
    );
  }
  requestFlip(core, session, mode, warn);
}

/**
 * Re-parks a recorded user flip that has not had its boundary yet (see `intent-file.ts`); a stale one is removed.
 * An unreadable record fails closed: the session lands in a mode no policy defines until the user switches.
 */
function restore(
  core: ModeCore,
  session: Session,
  error: (message: string) => void,
  warn: (message: string) => void,
): void {
  if (!session.file) return;
  const stored = readIntent(session.file);
  if (stored === null) return;
  if (stored === 'malformed') {
    error(
      `${intentPath(session.file)} is not a mode switch this engine recorded; every tool will be denied until the user switches mode`,
    );
    requestFlip(core, session, MALFORMED_MODE, warn);
    return;
  }
  if (isStale(stored, session.events)) {
    core.forget(session);
    return;
  }
  if (core.pending(session) === undefined && stored.mode === core.mode(session)) {
    core.forget(session);
    return;
  }
  if (!core.isDefined(stored.mode)) {
    error(
      `session ${session.id} has a recorded switch to unknown mode \`${stored.mode}\` (available: ${available(core)}); every tool will be denied`,
    );
  }
  requestFlip(core, session, stored.mode, warn);
}

/** A recorded intent had its boundary once the log shows a `turn/start` or a `mode/set` after it. */
function isStale(stored: StoredIntent, events: Session['events']): boolean {
  if (stored.seq > events.length) return true;
  for (let i = stored.seq; i < events.length; i++) {
    const type = events[i]!.type;
    if (type === 'turn/start' || type === 'mode/set') return true;
  }
  return false;
}

function available(core: ModeCore): string {
  return core.modes
    .list()
    .map((entry) => entry.name)
    .join(', ');
}

/** The plugin object, for `ctx.plugin(ModePlugin, config)`. */
export const ModePlugin = { name, inject, apply };
