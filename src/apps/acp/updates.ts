/**
 * Session events → ACP `session/update` payloads. Pure: the same mapping streams a live turn and replays a
 * loaded session's history, so a client sees the same cards either way.
 *
 * `user/message` and `context/message` (a mode switch's narration, marked `_meta["dsh-mode/context"]`) →
 * `user_message_chunk`, one `messageId` per event (the agent sends them only when replaying a loaded session);
 * `assistant/message` reasoning → `agent_thought_chunk` and its text → `agent_message_chunk`, each with a
 * `messageId` of its own (unless they were already streamed chunk by chunk, see `chunkUpdates`); `tool/call` → `tool_call` (pending; `in_progress` follows from the agent once the call is allowed,
 * see `inProgress`; titled by the tool's `present()`, the
 * exit plan as markdown content); `tool/result` → `tool_call_update` (completed or failed, the result text as
 * content, a denial's sentence for the user instead where it has one, and the rule that denied or asked about the call, if any, as `_meta["dsh-mode/rule"]`). Everything else is log-only here; `mode/set` is handled by the mode notifier.
 *
 * What a client shows is bounded and escaped, so no single update can outgrow a client's message limit or draw
 * fake lines: a title is one line of at most 500 characters, a text at most 200,000 UTF-16 units (a longer tool
 * result is cut with a note; a longer message goes out as several chunks), `rawInput` over 1 MiB of JSON has its
 * long strings cut, and every shown text goes through `visible` (control, bidi and zero-width characters
 * spelled out; the model and the journal keep the original).
 * @module
 */
import type { SessionUpdate, ToolCallContent, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type {
  ModelChunk,
  SessionEvent,
  SessionEventMap,
  Tool,
  ToolLookup,
  ToolResultData,
  VerdictRule,
} from '../../host/types.js';
import { shownFile } from '../../compile/index.js';
import { visible } from '../visible.js';

/**
 * The most UTF-16 units of one text in an update: the longest valid plan (100,000 characters, which the schema
 * counts as code points) fits whole.
 */
export const MAX_SHOWN_CHARS = 200_000;
const MAX_TITLE_CHARS = 500;
const MAX_RAW_INPUT_BYTES = 1024 * 1024;
const MAX_RAW_STRING_CHARS = 4096;

/** Looks a tool up by name (for its `present()` card); absent tools get a generic card. */
export type { ToolLookup };

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  grep: 'search',
  write: 'edit',
  edit: 'edit',
  bash: 'execute',
  todo_write: 'think',
  exit_plan_mode: 'switch_mode',
};

/**
 * The card of a tool call: its title and markdown, from the tool's `present()` when it has one.
 * @param name the tool name
 * @param args the call's arguments
 * @param tools the lookup
 */
export function presentCall(
  name: string,
  args: unknown,
  tools: ToolLookup,
): { title: string; markdown?: string } {
  const tool = tools(name);
  if (tool?.present) {
    try {
      return tool.present(args);
    } catch {
      // a presenter that fails on odd arguments falls back to the generic card below
    }
  }
  const { path, command } = (args as { path?: unknown; command?: unknown } | null) ?? {};
  if (typeof command === 'string') return { title: `${name}: ${command}` };
  return { title: typeof path === 'string' ? `${name} ${path}` : name };
}

/**
 * The content of a permission question for a call that has no card content of its own: the whole command (or
 * path) being approved, since a title is one line cut at 500 characters and a long harmless prefix must not hide
 * the rest, and the reason it is asked (for an argument rule: the sub-command or path that asks, and the
 * pattern with its file:line:column).
 * @param args the call's arguments
 * @param reason why the call is asked
 * @returns the content blocks, escaped and bounded (none when there is nothing to add)
 */
export function questionContent(args: unknown, reason: string | undefined): ToolCallContent[] {
  const { path, command } = (args as { path?: unknown; command?: unknown } | null) ?? {};
  const subject = typeof command === 'string' ? command : typeof path === 'string' ? path : undefined;
  const parts: string[] = [];
  if (subject !== undefined) parts.push(subject);
  if (reason !== undefined && reason !== '') parts.push(reason);
  return parts.length === 0 ? [] : text(shownText(parts.join('\n\n')));
}

/**
 * The fields of a tool call card as a client gets them, bounded and escaped.
 * @param toolCallId the call's id
 * @param name the tool name
 * @param args the call's arguments
 * @param tools the lookup
 */
export function callCard(
  toolCallId: string,
  name: string,
  args: unknown,
  tools: ToolLookup,
): ToolCallUpdate & { title: string } {
  const card = presentCall(name, args, tools);
  return {
    toolCallId,
    title: visible(cut(String(card.title), MAX_TITLE_CHARS), 'line'),
    status: 'pending',
    rawInput: boundedInput(args),
    ...(card.markdown !== undefined ? { content: text(shownText(card.markdown)) } : {}),
  };
}

/** A tool's text cut to the limit with a note saying how much was left out, then escaped. */
export function shownText(value: string): string {
  if (value.length <= MAX_SHOWN_CHARS) return visible(value);
  const kept = cut(value, MAX_SHOWN_CHARS);
  return `${visible(kept)}\n\n[… ${value.length - kept.length} more characters not shown]`;
}

/** A message's text as escaped chunks of at most the limit each, so nothing is lost. */
export function textChunks(value: string): string[] {
  const chunks: string[] = [];
  for (let rest = value; rest !== '';) {
    const piece = cut(rest, MAX_SHOWN_CHARS);
    chunks.push(visible(piece));
    rest = rest.slice(piece.length);
  }
  return chunks;
}

/** The first `max` UTF-16 units, never between the halves of a surrogate pair. */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** Arguments as is up to 1 MiB of JSON; beyond, long strings cut; beyond that again, a note. */
function boundedInput(args: unknown): unknown {
  const bytes = jsonBytes(args);
  if (bytes <= MAX_RAW_INPUT_BYTES) return args;
  const clipped = clipStrings(args, 0);
  if (jsonBytes(clipped) <= MAX_RAW_INPUT_BYTES) return clipped;
  return { _truncated: `the arguments are ${bytes} bytes of JSON, too large to show` };
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

function clipStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= MAX_RAW_STRING_CHARS) return value;
    const kept = cut(value, MAX_RAW_STRING_CHARS);
    return `${kept}[… ${value.length - kept.length} more characters not shown]`;
  }
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => clipStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipStrings(v, depth + 1)]));
}

/** The `_meta` key that marks a replayed user-role message as the host's narration (a mode switch notice). */
export const CONTEXT_META_KEY = 'dsh-mode/context';

/** The `_meta` key that marks an agent message as the agent's own notice (not the model's text, not logged). */
export const NOTICE_META_KEY = 'dsh-mode/notice';

/**
 * A notice for the user as an agent message of its own (ACP has no other update a client shows as text): for
 * example an MCP server of the client's that was left out, and why.
 * @param value the notice (escaped and bounded here)
 * @param messageId its message id, unique on the connection
 */
export function noticeUpdates(value: string, messageId: string): SessionUpdate[] {
  return textChunks(value).map((chunk) => ({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: chunk },
    messageId,
    _meta: { [NOTICE_META_KEY]: true },
  }));
}

/** The `_meta` key under which a tool call carries the rule that denied it or asked about it. */
export const RULE_META_KEY = 'dsh-mode/rule';

/**
 * The `_meta` of a tool call update that names its deciding rule (ACP reserves `_meta` for such extensions; the
 * key is namespaced, as ACP asks of custom keys).
 * @param rule the rule, if the verdict named one
 * @returns `{ _meta }` to spread into the update, or nothing
 */
export function ruleMeta(rule: VerdictRule | undefined): { _meta?: { [RULE_META_KEY]: VerdictRule } } {
  // Named as every output names it: the built-in plan by its place in the package, not where it is installed.
  return rule
    ? { _meta: { [RULE_META_KEY]: { ...rule, file: rule.file === null ? null : shownFile(rule.file) } } }
    : {};
}

/** A result's `data.userReason`, if the log holds a string there (a log is read, not trusted). */
function userReasonOf(data: ToolResultData | undefined): string | undefined {
  const reason: unknown = typeof data === 'object' && data !== null ? data.userReason : undefined;
  return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

/** The update that says a call has started running (after its verdict allowed it, or its approval). */
export function inProgress(toolCallId: string): SessionUpdate {
  return { sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' };
}

function text(value: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text: value } }];
}

/**
 * The updates for one streamed piece of an answer: reasoning → `agent_thought_chunk`, text → `agent_message_chunk`.
 * @param chunk the streamed piece
 * @returns zero (an empty piece) or more updates
 */
export function chunkUpdates(chunk: ModelChunk): SessionUpdate[] {
  const sessionUpdate = chunk.kind === 'reasoning' ? 'agent_thought_chunk' : 'agent_message_chunk';
  return textChunks(chunk.text).map((text) => ({ sessionUpdate, content: { type: 'text', text } }));
}

/**
 * The updates for one logged event.
 * @param event the session event
 * @param tools tool lookup for cards
 * @param streamed true when this assistant message's text already went out as chunks
 * @returns zero or more updates, in order
 */
export function updatesFor(event: SessionEvent, tools: ToolLookup, streamed = false): SessionUpdate[] {
  switch (event.type) {
    case 'user/message':
    case 'context/message': {
      // Each logged message is its own message for the client too (`messageId`), so a narration never runs
      // into the prompt after it; a narration is marked, since the user did not type it.
      const context = event.type === 'context/message';
      const messageId = `${context ? 'context' : 'user'}-${event.seq}`;
      return textChunks(event.data.text).map((chunk) => ({
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: chunk },
        messageId,
        ...(context ? { _meta: { [CONTEXT_META_KEY]: true } } : {}),
      }));
    }
    case 'assistant/message': {
      const { data } = event;
      if (streamed) return [];
      // The reasoning and the text are two messages for the client, each with its id (as replayed user messages).
      const withId = (updates: SessionUpdate[], messageId: string) =>
        updates.map((update) => ({ ...update, messageId }));
      return [
        ...(typeof data.reasoning === 'string'
          ? withId(chunkUpdates({ kind: 'reasoning', text: data.reasoning }), `thought-${event.seq}`)
          : []),
        ...withId(chunkUpdates({ kind: 'text', text: data.text }), `assistant-${event.seq}`),
      ];
    }
    case 'tool/call': {
      const { data } = event;
      const { toolCallId, title, rawInput, content } = callCard(
        data.callId,
        data.name,
        data.arguments,
        tools,
      );
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId,
          title,
          // Own names only: a model may call a tool `constructor` or `__proto__`.
          kind: (Object.hasOwn(KINDS, data.name) ? KINDS[data.name] : undefined) ?? 'other',
          status: 'pending',
          rawInput,
          ...(content ? { content } : {}),
        },
      ];
    }
    case 'tool/result': {
      const { data } = event;
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: data.callId,
          status: data.isError ? 'failed' : 'completed',
          // A denial says why in words for the user where the verdict had them; `content` was the model's advice.
          content: text(shownText(userReasonOf(data.data) ?? data.content)),
          ...ruleMeta(data.data?.rule),
        },
      ];
    }
    default:
      return [];
  }
}
