/**
 * One session journal: an append-only event log with turn enclosure. `append()` assigns the next `seq`, writes
 * the line (when persisted), then awaits the contained `session/event` waterfall, so a listener may append
 * further events re-entrantly (the mode engine lands `mode/set` right after `turn/start` / `step/end`).
 *
 * Enclosure: `turn/start` opens a turn (refused while one is open), `turn/end` closes it, every other event
 * must fall inside an open turn. A throwing `session/event` listener is logged and never breaks the append.
 * @module
 */
import type { Context } from 'cordis';
import { containListeners, sessionEventWaterfall } from './contain.js';
import type { JournalWriter } from './journal-file.js';
import type { Session, SessionEvent, SessionEventMap, SessionEventType } from './types.js';

/** The in-process implementation of `Session`. */
export class JournalSession implements Session {
  readonly #events: SessionEvent[];
  #turnOpen: boolean;
  #writer: JournalWriter | null;
  #release: (() => void) | null;
  #closed = false;

  /**
   * @param ctx the context whose `session/event` listeners see each append
   * @param id the session id (the file's basename without `.jsonl`)
   * @param file the JSONL path, or null for an in-memory session
   * @param events the events already in the log (resume, fork)
   * @param writer the open file (null in memory) and the lock's release
   * @param resumed whether the events came from an earlier run (the first header is then logged as `resume`)
   */
  constructor(
    private readonly ctx: Context,
    readonly id: string,
    readonly file: string | null,
    events: SessionEvent[],
    writer: { writer: JournalWriter; release: () => void } | null,
    readonly resumed: boolean,
  ) {
    containListeners(ctx);
    this.#events = events;
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
      time: new Date().toISOString(),
    } as SessionEvent<K>;
    Object.freeze(event);
    // Written before it is acknowledged: a failed write leaves the log unchanged and rejects the append. An
    // in-memory session has no line to write.
    if (this.#writer) this.#writer.write(JSON.stringify(event) + '\n');
    this.#events.push(event);
    if (type === 'turn/start') this.#turnOpen = true;
    if (type === 'turn/end') {
      this.#turnOpen = false;
      this.#writer?.sync();
    }
    await sessionEventWaterfall(this.ctx, this, event);
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
 * Deep-freezes an event's data in place: plain objects and arrays; anything else is left as it is. A frozen value
 * is taken as frozen throughout (the host's sealed headers and arguments are), which also ends a cycle.
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
  for (const key of Object.keys(value)) freezeData((value as Record<string, unknown>)[key]);
}
