/**
 * `ctx.modes`: the thin service UIs call (chat `/mode`, ACP `session/set_mode` and `availableModes`). Everything
 * else the engine does happens in listeners, so unloading it loses modes gracefully and breaks no consumer.
 *
 * - `list()`: `default` first, then the configured modes in load order (plan first), each with its description.
 * - `get(agent)`: the landed mode (the fold), any pending intent, and whether the landed mode is defined here.
 * - `set(agent, mode)`: validates the name (unknown → {@link UnknownModeError} listing the available modes;
 *   `default` is always valid), drops a no-op (target equal to `pending ?? current`), clears the pending intent
 *   when the target is the landed mode, otherwise parks a pending intent that lands as `mode/set` at the next
 *   `turn/start` or `step/end` (invariant 5). A user flip is narrated
 *   when it lands if the model last saw another mode (invariant 6). The intent is recorded beside the session's
 *   journal before `set()` returns, so a flip made while the agent is idle survives a restart of the process.
 * @module
 */
import { Service, type Context } from 'cordis';
import { suggest } from '../compile/index.js';
import type { Session } from '../host/types.js';
import type { Intent, ModeCore } from './core.js';

declare module 'cordis' {
  interface Context {
    modes: ModesService;
  }
}

/** One entry of `list()`. */
export interface ModeInfo {
  name: string;
  description?: string;
}

/** What `get()` reports. */
export interface ModeState {
  /** The landed mode: the fold of the session log. */
  current: string;
  /** A flip waiting for the next boundary, when there is one. */
  pending?: string;
  /** False when the landed mode is not configured here: every tool is then denied (fails closed). */
  defined: boolean;
}

/** Anything that owns a session (an `Agent`). */
export interface ModeSubject {
  readonly session: Session;
}

/** `set()` with a mode this deployment does not define. */
export class UnknownModeError extends Error {
  override readonly name = 'UnknownModeError';

  /**
   * @param mode the requested name
   * @param available the names `set()` accepts
   */
  constructor(
    readonly mode: string,
    readonly available: readonly string[],
  ) {
    // A typo gets a did-you-mean, as `dsh-mode check` gives one (the chat's `/mode` and `--mode`, ACP clients).
    const [near] = suggest(mode, available);
    const guess = near === undefined ? '' : `; did you mean \`${near}\`?`;
    super(`unknown mode \`${mode}\`; available modes: ${available.join(', ')}${guess}`);
  }
}

/** The `ctx.modes` service. */
export class ModesService extends Service {
  /**
   * @param ctx the plugin's context (the service lives as long as the plugin)
   * @param core the engine state it reads and parks intents in
   */
  constructor(
    ctx: Context,
    private readonly core: ModeCore,
  ) {
    super(ctx, 'modes');
  }

  /** @returns `default` first, then the configured modes with their descriptions */
  list(): ModeInfo[] {
    return this.core.modes.list();
  }

  /**
   * @param agent the agent (or anything with its session)
   * @returns the landed mode, any pending intent, and whether the landed mode is defined
   */
  get(agent: ModeSubject): ModeState {
    const current = this.core.mode(agent.session);
    const pending = this.core.pending(agent.session)?.mode;
    const state: ModeState = { current, defined: this.core.isDefined(current) };
    if (pending !== undefined) state.pending = pending;
    return state;
  }

  /**
   * Asks for a mode flip; it lands at the next `turn/start` or `step/end`.
   * @param agent the agent (or anything with its session)
   * @param mode the target mode: `default` or a configured mode
   * @returns the state after the request (`pending` shows the parked intent)
   * @throws {@link UnknownModeError} for a mode this deployment does not define; an `Error` when the intent
   *   cannot be recorded beside the session's journal (then nothing changed)
   */
  set(agent: ModeSubject, mode: string): ModeState {
    if (typeof mode !== 'string' || !this.core.isDefined(mode)) {
      throw new UnknownModeError(
        String(mode),
        this.list().map((entry) => entry.name),
      );
    }
    requestFlip(this.core, agent.session, mode);
    return this.get(agent);
  }
}

/**
 * The pending-intent rule shared by `set()`, seeding and restoring: a target equal to `pending ?? current` is
 * dropped; a target equal to the landed mode clears the pending intent (nothing is left to land, as a net-zero
 * sequence should be); anything else replaces the pending intent as a narrated user flip. The intent is recorded
 * beside the session's journal first, so it survives a restart of the process (see `intent-file.ts`).
 * @param core the engine state
 * @param session the session to flip
 * @param mode the target (not validated here)
 * @param report absent: a failure to record the intent throws and changes nothing; given: the failure is
 *   reported and the flip still applies in this process
 * @returns whether the pending intent changed
 * @throws when the intent cannot be recorded and no `report` is given
 */
export function requestFlip(
  core: ModeCore,
  session: Session,
  mode: string,
  report?: (message: string) => void,
): boolean {
  const current = core.mode(session);
  const pending = core.pending(session);
  if (mode === (pending?.mode ?? current)) return false;
  const next: Intent | undefined = mode === current ? undefined : { mode, narrate: true };
  try {
    core.record(session, next);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const message = `could not record the switch to ${mode} mode beside the session log: ${detail}`;
    if (!report) throw new Error(message);
    report(`${message}; it applies in this process only`);
  }
  if (next) core.park(session, next);
  else core.settle(session, pending!);
  return true;
}
