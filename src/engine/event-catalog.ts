/**
 * The engine's session event (`mode/set`) as data. The complete catalogue of every session event type, host and
 * engine together, is `src/event-catalog.ts` (the engine depends on the host by types only).
 *
 * Contract: one entry per event type the engine declares in `vocabulary.ts`, keyed by the type, with `type` equal
 * to the key (`satisfies` here and in the complete catalogue make tsc check both).
 * @module
 */
import type { SessionEventCatalog } from '../host/event-catalog.js';
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
      'src/apps/acp: `current_mode_update`',
      'src/apps/chat: the “mode is now …” line',
    ],
    description:
      'The active mode from here on: whole-value, the last one wins. Never in the transcript, so no compaction hides it.',
  },
} as const satisfies SessionEventCatalog;
