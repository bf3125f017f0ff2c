/**
 * Session events → ACP `session/update` payloads. Pure: the same mapping streams a live turn and replays a
 * loaded session's history, so a client sees the same cards either way.
 *
 * `user/message` → `user_message_chunk`; `assistant/message` text → `agent_message_chunk` (unless the text was
 * already streamed chunk by chunk); `tool/call` → `tool_call` (pending, titled by the tool's `present()`, the
 * exit plan as markdown content); `tool/result` → `tool_call_update` (completed or failed, the result text as
 * content). Everything else is log-only here; `mode/set` is handled by the mode notifier.
 * @module
 */
import type { SessionUpdate, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import type { SessionEvent, SessionEventMap, Tool } from '../../host/types.js';

/** Looks a tool up by name (for its `present()` card); absent tools get a generic card. */
export type ToolLookup = (name: string) => Tool | undefined;

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
  const path = (args as { path?: unknown } | null)?.path;
  return { title: typeof path === 'string' ? `${name} ${path}` : name };
}

function text(value: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text: value } }];
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
    case 'user/message': {
      const data = event.data as SessionEventMap['user/message'];
      return [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: data.text } }];
    }
    case 'assistant/message': {
      const data = event.data as SessionEventMap['assistant/message'];
      if (streamed || data.text === '') return [];
      return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: data.text } }];
    }
    case 'tool/call': {
      const data = event.data as SessionEventMap['tool/call'];
      const card = presentCall(data.name, data.arguments, tools);
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId: data.callId,
          title: card.title,
          // Own names only: a model may call a tool `constructor` or `__proto__`.
          kind: (Object.hasOwn(KINDS, data.name) ? KINDS[data.name] : undefined) ?? 'other',
          status: 'pending',
          rawInput: data.arguments,
          ...(card.markdown !== undefined ? { content: text(card.markdown) } : {}),
        },
      ];
    }
    case 'tool/result': {
      const data = event.data as SessionEventMap['tool/result'];
      return [
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: data.callId,
          status: data.isError ? 'failed' : 'completed',
          content: text(data.content),
        },
      ];
    }
    default:
      return [];
  }
}
