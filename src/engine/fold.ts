/**
 * The mode fold (invariant 1 in docs/architecture.md): the active mode is a pure function of the session log, the last
 * `mode/set {mode}` wins, none means `default`. Resume and fork restore it with no extra mechanism because they
 * restore the log.
 *
 * {@link ModeFoldCache} keeps the fold per session with a lazy cursor (the RFC's `foldRequestHeader` idiom): a read
 * folds only the events appended since the previous read, so it costs O(new events). It never needs invalidating:
 * the log is append-only and `mode/set` is not a surface event, so nothing rewrites it. Alongside the mode it keeps
 * the mode that was active when the last request header (`request/header` or `request/header-delta`) was logged,
 * which is what narration compares a landed user flip with (invariant 6).
 *
 * A `mode/set` whose payload is malformed (no data, or a `mode` that is not a string: a hand-edited or corrupted
 * log) folds to {@link MALFORMED_MODE}, a name no configuration can define, so it fails closed (invariant 9)
 * instead of crashing the fold or reading as `default`.
 * @module
 */
import type { UncheckedEvent } from '../host/types.js';
import { DEFAULT_MODE } from './vocabulary.js';

/**
 * The mode a malformed `mode/set` folds to. Not a valid mode name (`^[a-z][a-z0-9-]*$`), so no policy can define
 * it: the session fails closed (everything denied, `get()` says `defined: false`) until a valid flip lands.
 */
export const MALFORMED_MODE = '<malformed mode/set>';

/**
 * The mode a `mode/set` payload names.
 * @param data the event's data, untrusted (a log may have been edited by hand)
 * @returns its `mode` when that is a string, else {@link MALFORMED_MODE}
 */
export function modeOfSet(data: unknown): string {
  const mode = typeof data === 'object' && data !== null && 'mode' in data ? data.mode : undefined;
  return typeof mode === 'string' ? mode : MALFORMED_MODE;
}

/**
 * Folds the active mode of a log.
 * @param events the session's events, in `seq` order
 * @param end how many leading events to fold (exclusive index; default all). Since `seq` starts at 1 and grows by
 *   one, `foldMode(events, event.seq - 1)` is the mode just before `event`.
 * @returns the mode of the last `mode/set` before `end`, or `default`
 */
export function foldMode(events: readonly UncheckedEvent[], end: number = events.length): string {
  for (let i = Math.min(end, events.length) - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'mode/set') return modeOfSet(event.data);
  }
  return DEFAULT_MODE;
}

/** What the cache knows about one session's log, as of `cursor` events. */
export interface ModeFold {
  /** The active (landed) mode. */
  readonly mode: string;
  /** The mode active when the last request header or header delta was logged; undefined before the first. */
  readonly headerMode: string | undefined;
  /** How many events have been folded. */
  readonly cursor: number;
}

/** Anything with a growing event list (a `Session`), read as unchecked: a resumed log may hold any payload. */
export interface EventSource {
  readonly events: readonly UncheckedEvent[];
}

interface MutableFold {
  mode: string;
  headerMode: string | undefined;
  cursor: number;
}

/** The per-session fold with a lazy cursor, in a `WeakMap` keyed by the session: O(new events) per read. */
export class ModeFoldCache {
  readonly #folds = new WeakMap<EventSource, MutableFold>();

  /**
   * Brings the session's fold up to date and returns it.
   * @param session the session (its `events` only ever grow)
   * @returns the fold as of the session's last event; do not keep it across appends
   */
  read(session: EventSource): ModeFold {
    let fold = this.#folds.get(session);
    if (fold === undefined) {
      fold = { mode: DEFAULT_MODE, headerMode: undefined, cursor: 0 };
      this.#folds.set(session, fold);
    }
    advance(fold, session.events);
    return fold;
  }

  /**
   * The landed mode of a session.
   * @param session the session
   * @returns the folded mode
   */
  mode(session: EventSource): string {
    return this.read(session).mode;
  }
}

/** Folds the events appended since the fold's cursor. */
function advance(fold: MutableFold, events: readonly UncheckedEvent[]): void {
  for (let i = fold.cursor; i < events.length; i++) {
    const event = events[i]!;
    if (event.type === 'mode/set') fold.mode = modeOfSet(event.data);
    else if (event.type === 'request/header' || event.type === 'request/header-delta')
      fold.headerMode = fold.mode;
  }
  fold.cursor = events.length;
}
