/**
 * The complete catalogue of every session event type the host and the engine declare: what
 * `docs/reference/session-events.md` and UIs read. It lives above both layers because it joins them.
 *
 * Contract: exactly one entry per key of `SessionEventMap` as merged by every declaring module:
 * `satisfies Record<SessionEventType, …>` makes tsc fail when an event type is added without its entry (excess
 * keys fail the partial catalogues' own `satisfies`). test/docs/event-catalog.test.ts checks the rest at run
 * time: `surface` against `SURFACE_EVENT_TYPES`, `payload` against the declarations.
 * @module
 */
import { ENGINE_EVENT_CATALOG } from './engine/event-catalog.js';
import { HOST_EVENT_CATALOG, type SessionEventDoc } from './host/event-catalog.js';
import type { SessionEventType } from './host/types.js';

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
