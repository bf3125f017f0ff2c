/**
 * Landing (invariants 5 and 6 in docs/architecture.md): a pending intent becomes a `mode/set` right after the next `turn/start`
 * or `step/end`. Both boundaries sit outside a step's tool window, so a step's calls always run under the mode its
 * request was assembled in.
 *
 * The listener is registered outermost (`prepend`) and awaits `next()` first, so every other listener has seen
 * the boundary event before the flip lands, and a `set()` that arrives while one of them awaits still lands at
 * this boundary. An intent equal to the folded mode is discarded with no append (a net-zero sequence leaves no trace). The intent is cleared only after
 * its append succeeds; a failed append warns once per intent and leaves it parked for the next boundary. A settled
 * intent also removes the intent recorded beside the journal (`intent-file.ts`).
 *
 * Narration: a landed user flip whose mode differs from the mode at the last request header appends exactly one
 * `context/message` right after its `mode/set`. Before the first header the section itself states the mode, and a
 * tool-driven exit is narrated by its own tool result, so both are silent.
 * @module
 */
import type { Session, SessionEvent } from '../host/types.js';
import type { Intent, ModeCore } from './core.js';
import { DEFAULT_MODE } from './vocabulary.js';

/** The `session/event` waterfall listener signature (the host's contract). */
export type SessionEventListener = (
  session: Session,
  event: SessionEvent,
  next: () => Promise<void>,
) => Promise<void>;

/**
 * The notice a landed user flip appends, worded for the target mode.
 * @param mode the mode the session switched to
 * @returns one sentence (or two for default, which also says the toolset is back)
 */
export function narration(mode: string): string {
  if (mode === DEFAULT_MODE) {
    return 'The user switched this session to default mode: the full toolset is available again.';
  }
  return `The user switched this session to ${mode} mode.`;
}

/**
 * Builds the landing listener.
 * @param core the engine state
 * @param warn where a failed append is reported
 * @returns the `session/event` listener
 */
export function createBoundaryListener(
  core: ModeCore,
  warn: (message: string) => void,
): SessionEventListener {
  const landing = new WeakSet<Session>();
  const warned = new WeakSet<Intent>();

  const land = async (session: Session): Promise<void> => {
    const intent = core.pending(session);
    // INVARIANT: one landing per session at a time; the appends below re-enter this listener.
    if (!intent || landing.has(session) || core.disposed) return;
    if (intent.mode === core.mode(session)) {
      settle(session, intent);
      return;
    }
    const before = core.folds.read(session).headerMode;
    landing.add(session);
    try {
      try {
        // Frozen: a `session/event` listener is handed it, and the gate judges by what it says.
        await session.append('mode/set', Object.freeze({ mode: intent.mode }));
      } catch (error) {
        if (!warned.has(intent)) {
          warned.add(intent);
          const why = describe(error);
          warn(
            `could not record the switch to ${intent.mode} mode; it stays pending for the next boundary: ${why}`,
          );
        }
        return;
      }
      settle(session, intent);
      if (intent.narrate && before !== undefined && before !== intent.mode) {
        try {
          await session.append('context/message', { text: narration(intent.mode) });
        } catch (error) {
          warn(`could not narrate the switch to ${intent.mode} mode: ${describe(error)}`);
        }
      }
    } finally {
      landing.delete(session);
    }
  };

  // A settled intent leaves no recorded intent behind, unless a newer one was set meanwhile.
  const settle = (session: Session, intent: Intent): void => {
    core.settle(session, intent);
    if (!core.pending(session)) core.forget(session);
  };

  return async (session, event, next) => {
    await next();
    if (isBoundary(event)) await land(session);
  };
}

/**
 * Whether an intent lands after this event: `turn/start` and `step/end`, both outside a step's tool window.
 * @param event a session event
 * @returns true for a boundary
 */
export function isBoundary(event: SessionEvent): boolean {
  return event.type === 'turn/start' || event.type === 'step/end';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
