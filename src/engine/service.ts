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
 *   when it lands if the model last saw another mode (invariant 6).
 * @module
 */
import { Service, type Context } from 'cordis';
import type { Session } from '../host/types.js';
import type { ModeCore } from './core.js';

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
    super(`unknown mode \`${mode}\`; available modes: ${available.join(', ')}`);
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
   * @throws {@link UnknownModeError} for a mode this deployment does not define
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
 * The pending-intent rule shared by `set()` and seeding: a target equal to `pending ?? current` is dropped; a
 * target equal to the landed mode clears the pending intent (nothing is left to land, as a net-zero sequence
 * should be); anything else replaces the pending intent as a narrated user flip.
 * @param core the engine state
 * @param session the session to flip
 * @param mode the target (not validated here)
 * @returns whether the pending intent changed
 */
export function requestFlip(core: ModeCore, session: Session, mode: string): boolean {
  const current = core.mode(session);
  const pending = core.pending(session);
  if (mode === (pending?.mode ?? current)) return false;
  if (mode === current) core.settle(session, pending!);
  else core.park(session, { mode, narrate: true });
  return true;
}
