/**
 * The host's session events as data: what each `SessionEventMap` entry means, whether it is surface (part of the
 * model transcript) or log-only, and who writes and reads it. Types are erased at run time, so this catalogue is
 * what `docs/reference/session-events.md` and UIs read.
 *
 * Contract: one entry per event type the host declares in `types.ts`, keyed by the type, with `type` equal to the
 * key (tsc enforces both, see `satisfies` below and the complete catalogue in `src/event-catalog.ts`);
 * `payload` is the declared payload type as written in `types.ts`, and `surface` agrees with
 * `SURFACE_EVENT_TYPES` (test/docs/event-catalog.test.ts checks both).
 * @module
 */
import type { SessionEventType } from './types.js';

/** What the catalogue says about one session event type. */
export interface SessionEventDoc<K extends SessionEventType = SessionEventType> {
  /** The event type: equal to its key in the catalogue. */
  readonly type: K;
  /** `surface` events form the model transcript; `log-only` events never reach the model. */
  readonly surface: 'surface' | 'log-only';
  /** The payload type as declared in `SessionEventMap` (TypeScript syntax). */
  readonly payload: string;
  /** The module (and function) that appends it. */
  readonly writer: string;
  /** The modules that read it, each with what for. */
  readonly readers: readonly string[];
  /** What the event records, in a sentence or two. */
  readonly description: string;
}

/** A partial catalogue: only types of the map, each entry naming its own key. */
export type SessionEventCatalog = { readonly [K in SessionEventType]?: SessionEventDoc<K> };

/** The events the host declares, in the order of `SessionEventMap`. */
export const HOST_EVENT_CATALOG = {
  'turn/start': {
    type: 'turn/start',
    surface: 'log-only',
    payload: '{ turn: number }',
    writer: 'src/host/loop.ts (`agent.prompt()`, first event of each turn)',
    readers: [
      'src/host/session.ts: opens the turn (events outside a turn are refused)',
      'src/host/journal-file.ts: a file whose first event is not `turn/start` with seq 1 is not a journal',
      'src/engine/boundary.ts: lands a pending mode intent right after it',
    ],
    description: 'Opens a turn; `turn` counts from 1 per session.',
  },
  'turn/end': {
    type: 'turn/end',
    surface: 'log-only',
    payload: "{ turn: number; reason: 'done' | 'max-steps' | 'cancelled' | 'error'; error?: string }",
    writer:
      'src/host/loop.ts (`agent.prompt()`); src/host/sessions.ts (`resume()` closes a turn a dead process left open, reason `error`)',
    readers: [
      'src/host/session.ts: closes the turn',
      'src/host/journal-file.ts: fsyncs the log',
      'src/host/sessions.ts: `fork()` must end on one',
      'src/apps/acp, src/apps/chat: stop reason and error text',
    ],
    description: 'Closes a turn and says why it ended.',
  },
  'step/start': {
    type: 'step/start',
    surface: 'log-only',
    payload: '{ step: number }',
    writer: 'src/host/loop.ts (before each model request)',
    readers: ['log viewers (no listener in this package)'],
    description: 'Opens a step: one model request and the tool calls it asks for.',
  },
  'step/end': {
    type: 'step/end',
    surface: 'log-only',
    payload: '{ step: number }',
    writer: 'src/host/loop.ts (after the step’s tool results)',
    readers: ['src/engine/boundary.ts: lands a pending mode intent (an approved plan exit) right after it'],
    description: 'Closes a step, after every tool call of its assistant batch has its result.',
  },
  'user/message': {
    type: 'user/message',
    surface: 'surface',
    payload: '{ text: string }',
    writer: 'src/host/loop.ts (`agent.prompt(text)`)',
    readers: [
      'src/host/transcript.ts: a user-role message',
      'src/apps/acp: replayed when a session is loaded',
    ],
    description: 'What the user said.',
  },
  'assistant/message': {
    type: 'assistant/message',
    surface: 'surface',
    payload: '{ text: string; toolCalls: ToolCallRequest[]; reasoning?: string }',
    writer: 'src/host/loop.ts (the model’s answer)',
    readers: [
      'src/host/transcript.ts: an assistant-role message with its tool calls and reasoning',
      'src/host/headers.ts: `replayHeaders()` yields one header per answer',
      'src/apps/acp: agent message chunks',
    ],
    description:
      'The model’s answer: its text and the tool calls it asks for, in order, and a thinking model’s reasoning.',
  },
  'tool/call': {
    type: 'tool/call',
    surface: 'log-only',
    payload: '{ callId: string; name: string; arguments: unknown }',
    writer:
      'src/host/loop.ts (before each call of the batch runs); src/host/sessions.ts (`resume()`, for a call of the interrupted batch that was never made)',
    readers: ['src/apps/acp: `tool_call` updates', 'src/apps/chat: the call line'],
    description: 'A call about to be judged and run (the transcript carries it inside `assistant/message`).',
  },
  'tool/result': {
    type: 'tool/result',
    surface: 'surface',
    payload: '{ callId: string; name: string; content: string; isError: boolean; data?: ToolResultData }',
    writer:
      'src/host/loop.ts (the tool runtime’s result, a denial included); src/host/sessions.ts (`resume()`: an interrupted error for each call a dead process left without one)',
    readers: [
      'src/host/transcript.ts: a tool-role message (a call still without one gets an interrupted error there)',
      'src/apps/acp: `tool_call_update` (`data.rule` as `_meta["dsh-mode/rule"]`; `data.userReason`, if any, as its text)',
      'src/apps/chat: the result',
    ],
    description:
      'What the call returned; a gate denial or a rejected approval is an error result. `data.rule` is the rule ' +
      "that denied the call or asked about it (selector, file, line, column); `data.userReason` a denial's sentence " +
      'for the user, when the verdict had one; the model sees only `content`.',
  },
  'context/message': {
    type: 'context/message',
    surface: 'surface',
    payload: '{ text: string }',
    writer: 'src/engine/boundary.ts (the notice of a landed user mode flip); any plugin',
    readers: ['src/host/transcript.ts: a user-role message with its text as written'],
    description: 'Text the host or a plugin tells the model between messages (not typed by the user).',
  },
  'request/header': {
    type: 'request/header',
    surface: 'log-only',
    payload: "{ header: RequestHeader; reason: 'initial' | 'resume' | 'fallback' }",
    writer: 'src/host/loop.ts (an agent’s first request; `fallback` when a delta cannot say the change)',
    readers: [
      'src/host/headers.ts: `replayHeaders()` rebuilds every request byte for byte',
      'src/host/loop.ts: the header the log states',
      'src/engine/fold.ts: the mode the model last saw (narration)',
    ],
    description: 'The full request header (system text and tool schemas) exactly as sent to the model.',
  },
  'request/header-delta': {
    type: 'request/header-delta',
    surface: 'log-only',
    payload: 'RequestHeaderDelta',
    writer: 'src/host/loop.ts (a request whose header differs from the one the log states)',
    readers: [
      'src/host/headers.ts: `applyDelta()` in the replay',
      'src/host/loop.ts: the header the log states',
      'src/engine/fold.ts: the mode the model last saw (narration)',
    ],
    description: 'Only what changed since the previous header; nothing is logged when nothing changed.',
  },
  'todo/write': {
    type: 'todo/write',
    surface: 'log-only',
    payload: '{ todos: TodoItem[] }',
    writer: 'src/host/tools/todo-write.ts (the `todo_write` tool)',
    readers: ['log viewers (the last one is the current list)'],
    description: 'The agent’s whole todo list, replaced.',
  },
  'approval/asked': {
    type: 'approval/asked',
    surface: 'log-only',
    payload: '{ callId: string; toolName: string; reason?: string; rule?: VerdictRule }',
    writer: 'src/host/tool-runtime.ts (an `ask` verdict, before `ctx.approval.request()`)',
    readers: ['log viewers and audits'],
    description:
      'A question was put to the user about this call; `rule` is the rule that asks (selector, file, line, column).',
  },
  'approval/decided': {
    type: 'approval/decided',
    surface: 'log-only',
    payload:
      "{ callId: string; outcome: ApprovalOutcome['outcome']; feedback?: string; sha256?: string; edited?: boolean; arguments?: unknown; }",
    writer:
      'src/host/tool-runtime.ts (when the answer arrives: before the tool runs and before any `mode/set` it causes)',
    readers: ['log viewers and audits', 'src/cli/plan-log.ts (`dsh-mode plans`)'],
    description:
      'The answer: `allowed-once`, `rejected` (with the user’s feedback), `cancelled` or `unavailable`. For a ' +
      'tool that presents its call as markdown (the plan of `exit_plan_mode`): `sha256`, the SHA-256 (hex) of ' +
      'that markdown for the final arguments, and `edited`, whether the user revised them before approving or ' +
      'rejecting (`arguments`: the revised arguments, only then: what was approved, or the user’s version of ' +
      'what was rejected).',
  },
} as const satisfies SessionEventCatalog;
