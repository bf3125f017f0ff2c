/**
 * The `agent/created` step: seeding `AgentOptions.mode` (invariant 8) or, without that option, restoring a user flip
 * that an earlier process recorded beside the session's journal and that has not had its boundary yet
 * (`intent-file.ts`). Either becomes an ordinary pending intent, landing at the next boundary.
 * @module
 */
import type { Agent, Session } from '../host/types.js';
import type { ModeCore } from './core.js';
import { MALFORMED_MODE } from './fold.js';
import { intentPath, readIntent, type StoredIntent } from './intent-file.js';
import { requestFlip } from './service.js';

/**
 * Seeds `AgentOptions.mode`, or else restores the user flip recorded beside the session's journal by an earlier
 * process. An unknown mode is still seeded, after a loud error: it then lands and fails closed (everything
 * denied, `get()` says `defined: false`) rather than silently running unrestricted.
 * @param core the engine state
 * @param agent the new agent
 * @param error where a loud problem is reported (an unknown mode, an unreadable record)
 * @param warn where a record that could not be written or removed is reported
 */
export function seed(
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
