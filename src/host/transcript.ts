/**
 * The model transcript, rebuilt from the surface events of a session log (`SURFACE_EVENT_TYPES`), in log order.
 * Convention: `user/message` and `context/message` are both user-role messages (a context message is host or
 * plugin narration such as a mode switch notice; its text is sent as written, so it should read as a notice);
 * `assistant/message` is an assistant message with its tool calls (and its reasoning, when logged); `tool/result` is a tool message.
 * Log-only events never reach the model.
 *
 * Every tool call is paired with a result: a call of a batch that still has none when the next message arrives
 * (a log that an older version closed after a crash) gets an interrupted error result right after its batch's
 * results. The rule depends on the log alone, so the request stays reconstructable from it. (A resume today
 * appends the real results, see `interrupted.ts`.)
 * @module
 */
import { callsOf, interruptedText } from './interrupted.js';
import type { ModelMessage, SessionEvent } from './types.js';

/** Builds a transcript incrementally: `add()` the events in log order, read `messages` (each one frozen). */
export class TranscriptBuilder {
  readonly #messages: ModelMessage[] = [];

  /** The messages so far; the same array grows as events are added. */
  get messages(): readonly ModelMessage[] {
    return this.#messages;
  }
  /** The calls of the latest batch without a result yet, by call id. */
  readonly #unanswered = new Map<string, string>();

  /** Adds one event (log-only events are ignored). */
  add(event: SessionEvent): void {
    switch (event.type) {
      case 'user/message':
      case 'context/message':
        this.#pairCalls();
        this.#push({ role: 'user', content: event.data.text });
        break;
      case 'assistant/message': {
        this.#pairCalls();
        const data = event.data;
        this.#push({
          role: 'assistant',
          content: data.text,
          toolCalls: data.toolCalls,
          ...(typeof data.reasoning === 'string' ? { reasoning: data.reasoning } : {}),
        });
        for (const call of callsOf(data)) this.#unanswered.set(call.callId, call.name);
        break;
      }
      case 'tool/result': {
        const data = event.data;
        this.#unanswered.delete(data.callId);
        this.#push({
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

  #push(message: ModelMessage): void {
    this.#messages.push(Object.freeze(message));
  }

  #pairCalls(): void {
    for (const [callId, name] of this.#unanswered) {
      this.#push({
        role: 'tool',
        callId,
        name,
        content: interruptedText(name, 'unknown'),
        isError: true,
      });
    }
    this.#unanswered.clear();
  }
}

/** Builds the model messages from a session's events. */
export function buildTranscript(events: readonly SessionEvent[]): ModelMessage[] {
  const builder = new TranscriptBuilder();
  for (const event of events) builder.add(event);
  return [...builder.messages];
}
