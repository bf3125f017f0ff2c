/**
 * The engine's session event (`mode/set`) as data, and the complete catalogue of every session event type the
 * host and the engine declare.
 *
 * Contract: {@link SESSION_EVENT_CATALOG} has exactly one entry per key of `SessionEventMap` as merged by every
 * declaring module: `satisfies Record<SessionEventType, …>` makes tsc fail when an event type is added without its
 * entry (excess keys fail the partial catalogues' own `satisfies`). test/docs/event-catalog.test.ts checks the
 * rest at run time: `surface` against `SURFACE_EVENT_TYPES`, `payload` against the declarations.
 * @module
 */
import type { SessionEventType } from '../host/types.js';
import { HOST_EVENT_CATALOG, type SessionEventCatalog, type SessionEventDoc } from '../host/event-catalog.js';
import './vocabulary.js';

/** The events the engine declares (`vocabulary.ts`). */
export const ENGINE_EVENT_CATALOG = {
  'mode/set': {
    type: 'mode/set',
    surface: 'log-only',
    payload: '{ mode: string }',
    writer:
      'src/engine/boundary.ts (a pending intent — user flip, `AgentOptions.mode` or an approved exit — landing right after `turn/start` or `step/end`)',
    readers: [
      'src/engine/fold.ts: the active mode is the last one (none means `default`)',
      'src/cli/acp: `current_mode_update`',
      'src/cli/chat: the “mode is now …” line',
    ],
    description:
      'The active mode from here on: whole-value, the last one wins. Never in the transcript, so no compaction hides it.',
  },
} as const satisfies SessionEventCatalog;

/** Every session event type, host first, then engine. */
export const SESSION_EVENT_CATALOG = {
  ...HOST_EVENT_CATALOG,
  ...ENGINE_EVENT_CATALOG,
} as const satisfies { readonly [K in SessionEventType]: SessionEventDoc<K> };

/**
 * The catalogue as a list, in declaration order.
 * @returns fresh array of the entries
 */
export function listSessionEvents(): SessionEventDoc[] {
  return Object.values(SESSION_EVENT_CATALOG);
}
