/**
 * The model transcript, rebuilt from the surface events of a session log (`SURFACE_EVENT_TYPES`), in log order.
 * Convention: `user/message` and `context/message` are both user-role messages (a context message is host or
 * plugin narration such as a mode switch notice; its text is sent as written, so it should read as a notice);
 * `assistant/message` is an assistant message with its tool calls; `tool/result` is a tool message.
 * Log-only events never reach the model.
 * @module
 */
import type { ModelMessage, SessionEvent, SessionEventMap } from './types.js';

/** Builds the model messages from a session's events. */
export function buildTranscript(events: readonly SessionEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
      case 'context/message':
        messages.push({ role: 'user', content: (event.data as SessionEventMap['user/message']).text });
        break;
      case 'assistant/message': {
        const data = event.data as SessionEventMap['assistant/message'];
        messages.push({ role: 'assistant', content: data.text, toolCalls: data.toolCalls });
        break;
      }
      case 'tool/result': {
        const data = event.data as SessionEventMap['tool/result'];
        messages.push({
          role: 'tool',
          callId: data.callId,
          name: data.name,
          content: data.content,
          isError: data.isError,
        });
        break;
      }
    }
  }
  return messages;
}
