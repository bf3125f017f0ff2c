/**
 * One session journal: an append-only event log with turn enclosure. `append()` assigns the next `seq`, writes
 * the line (when persisted), then awaits the contained `session/event` waterfall, so a listener may append
 * further events re-entrantly (the mode engine lands `mode/set` right after `turn/start` / `step/end`).
 *
 * Enclosure: `turn/start` opens a turn (refused while one is open), `turn/end` closes it, every other event
 * must fall inside an open turn. A throwing `session/event` listener is logged and never breaks the append.
 *
 * Quiet: a session that starts empty is quiet until an event of a type the host does not declare is appended to
 * it (a plugin's own, such as the mode engine's `mode/set`), or until `wake()` is called; it never becomes quiet
 * again (nor once its events array is seen at a length `append()` did not give it). Hooks registered
 * `skipWhenQuiet` are not called for a quiet session (see `Session` in types.ts).
 * @module
 */
import type { Context } from 'cordis';
import {
  containedWaterfall,
  containListeners,
  runAfter,
  type AfterListener,
  type ContainedListeners,
} from './contain.js';
import { HOST_EVENT_CATALOG } from './event-catalog.js';
import type { JournalWriter } from './journal-file.js';
import type { Session, SessionEvent, SessionEventMap, SessionEventType } from './types.js';

/** The in-process implementation of `Session`. */
export class JournalSession implements Session {
  readonly #events: SessionEvent[];
  #turnOpen: boolean;
  #writer: JournalWriter | null;
  #release: (() => void) | null;
  #closed = false;
  // Resolved once: appends are the hottest path of the host.
  readonly #listeners: ContainedListeners;
  readonly #sessionListeners: readonly unknown[];
  readonly #afterListeners: readonly AfterListener[];
  readonly #loudAfter: { readonly count: number };
  /** Quiet (see the module note) while true, and while the log has the length `append()` gave it. */
  #quiet: boolean;
  #appended: number;
  /**
   * {@link isQuiet} of this session, made once for the `after` dispatch of every append. A changed length, once
   * seen, wakes it for good: undoing the change (a pushed `mode/set` popped again) must not make it quiet again,
   * since a hook that saw the change may hold state from it (the engine's fold cursor does).
   */
  readonly #quietNow = (): boolean => {
    if (!this.#quiet) return false;
    if (this.#events.length === this.#appended) return true;
    this.#quiet = false;
    return false;
  };

  /**
   * @param ctx the context whose `session/event` listeners see each append
   * @param id the session id (the file's basename without `.jsonl`)
   * @param file the JSONL path, or null for an in-memory session
   * @param events the events already in the log (resume, fork)
   * @param writer the open file (null in memory) and the lock's release
   * @param resumed whether the events came from an earlier run (the first header is then logged as `resume`)
   * @param lists the app's contained listeners (the sessions service resolves them once for all its sessions)
   */
  constructor(
    private readonly ctx: Context,
    readonly id: string,
    readonly file: string | null,
    events: SessionEvent[],
    writer: { writer: JournalWriter; release: () => void } | null,
    readonly resumed: boolean,
    lists: ContainedListeners = containListeners(ctx),
  ) {
    this.#events = events;
    // An empty log folds to nothing any plugin set; a resumed or forked one may hold anything.
    this.#quiet = events.length === 0;
    this.#appended = events.length;
    this.#listeners = lists;
    this.#sessionListeners = this.#listeners.get('session/event') ?? [];
    this.#afterListeners = this.#listeners.after.get('session/event') ?? [];
    this.#loudAfter = this.#listeners.loudAfter;
    this.#turnOpen = openTurn(events) !== null;
    this.#writer = writer?.writer ?? null;
    this.#release = writer?.release ?? null;
  }

  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  get turnOpen(): boolean {
    return this.#turnOpen;
  }

  /**
   * Whether the session is quiet: `skipWhenQuiet` hooks are not called for it. False for good once a plugin's
   * own event type was appended, `wake()` was called, or the events array was seen at a length `append()` did not
   * give it (a log rewritten in place at the same length is not seen: see src/host/README.md).
   */
  get quiet(): boolean {
    return this.#quietNow();
  }

  /** Ends the session's quiet, for good: every hook is called for it from now on (any caller may; it only widens who is asked). */
  wake(): void {
    this.#quiet = false;
  }

  /**
   * Whether `session` is a quiet {@link JournalSession}. Anything else (another implementation, a proxy of one)
   * is never quiet, so every hook is asked about it.
   */
  static isQuiet(session: unknown): boolean {
    // `#quiet` first: an awake session (the gate's hot path in a mode) answers without a call.
    return (
      typeof session === 'object' &&
      session !== null &&
      #quiet in session &&
      session.#quiet &&
      session.#quietNow()
    );
  }

  /** True once `close()` ran: further appends throw. */
  get closed(): boolean {
    return this.#closed;
  }

  async append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): Promise<SessionEvent<K>> {
    if (this.#closed) throw new Error(`session ${this.id} is closed`);
    if (type === 'turn/start') {
      if (this.#turnOpen) throw new Error(`session ${this.id}: turn/start while a turn is open`);
    } else if (!this.#turnOpen) {
      throw new Error(
        `session ${this.id}: ${type} appended outside an open turn (every event but turn/start needs one)`,
      );
    }
    // INVARIANT: keys in this order; journal-file.ts recognises a torn first line by its `{"seq":1,"type":` start.
    // The signature ties `data` to `type`; the compiler cannot follow that through a generic `K`.
    // Frozen, its data deeply: every `session/event` listener is handed this object, and the folds (the mode,
    // the logged header, the transcript) read the log it joins. A listener that changed it would make memory
    // disagree with the journal: a header replayed from the file that was never sent, a mode the file never set.
    freezeData(data);
    const event = {
      seq: this.#events.length + 1,
      type,
      data,
      time: isoNow(),
    } as SessionEvent<K>;
    Object.freeze(event);
    // Written before it is acknowledged: a failed write leaves the log unchanged and rejects the append. An
    // in-memory session has no line to write.
    if (this.#writer) this.#writer.write(JSON.stringify(event) + '\n');
    // Woken before any listener sees the event: a plugin's own type may change what its hooks answer (and so
    // may a log changed behind append(), seen or not).
    if (this.#quiet && (!HOST_EVENT_TYPES.has(type) || !this.#quietNow())) this.#quiet = false;
    this.#events.push(event);
    this.#appended++;
    if (type === 'turn/start') this.#turnOpen = true;
    if (type === 'turn/end') {
      this.#turnOpen = false;
      this.#writer?.sync();
    }
    // No listener: nothing to wait for (most appends of a default-mode session).
    if (this.#sessionListeners.length > 0)
      await containedWaterfall(this.ctx, 'session/event', [this, event], noop, this.#listeners);
    // The listeners that act once the event has settled, only when they want it (the mode engine's landing).
    // A quiet session with only `skipWhenQuiet` ones (a default-mode step's appends) asks none of them.
    if (this.#loudAfter.count === 0 && this.#quietNow()) return event;
    const after = runAfter(this.ctx, this.#afterListeners, this, event, this.#quietNow);
    if (after !== undefined) await after;
    return event;
  }

  /** Flushes, closes the file and releases the lock. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#writer?.sync();
      this.#writer?.close();
    } finally {
      this.#writer = null;
      this.#release?.();
      this.#release = null;
    }
  }
}

async function noop(): Promise<void> {}

/** The event types the host declares: appending any other wakes a quiet session. */
const HOST_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(HOST_EVENT_CATALOG));

// `toISOString()` is the costliest part of an in-memory append; a step appends several events within one
// millisecond, and the same millisecond always formats to the same string, so the last one is reused.
let lastMs = Number.NaN;
let lastIso = '';

/** `new Date().toISOString()`, formatted once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** The turn number of a turn left open at the end of `events`, or null. */
export function openTurn(events: readonly SessionEvent[]): number | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'turn/end') return null;
    if (event.type === 'turn/start') return event.data.turn;
  }
  return null;
}

/**
 * Deep-freezes an event's data in place: plain objects and arrays (a frozen one is taken as frozen throughout,
 * as the host's sealed headers and arguments are; anything else is left as it is).
 */
function freezeData(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    Object.freeze(value);
    for (let i = 0; i < value.length; i++) freezeData(value[i]);
    return;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return;
  Object.freeze(value);
  // `for…in` allocates no array (this runs on every append); a plain object inherits no enumerable key.
  for (const key in value) freezeData((value as Record<string, unknown>)[key]);
}
