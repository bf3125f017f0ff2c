/**
 * Calls a dead process left without a result. OpenAI-compatible APIs refuse (HTTP 400) a transcript in which an
 * assistant message's tool call has no tool message, so such a call must get one. On resume, the turn left open
 * gets a real `tool/result` (an error saying it was interrupted) for each call of its last batch that has none,
 * before the turn is closed: the journal stays append-only and says exactly what the model is sent. A log that
 * an older version closed with a call still unanswered is paired in the transcript instead (`transcript.ts`).
 * @module
 */
import type { ToolCallRequest, UncheckedEvent } from './types.js';

/** How far an unanswered call got before the process ended. */
export type InterruptedAt = 'before-call' | 'awaiting-approval' | 'running' | 'unknown';

/** One call of the open turn's last batch without a result. */
export interface UnansweredCall {
  call: ToolCallRequest;
  /** Whether its `tool/call` is in the log. */
  called: boolean;
  at: InterruptedAt;
}

/** The error text a call without a result gets. */
export function interruptedText(name: string, at: InterruptedAt): string {
  switch (at) {
    case 'before-call':
      return `Error: \`${name}\` did not run: the agent process ended before the call was made.`;
    case 'awaiting-approval':
      return `Error: \`${name}\` did not run: the agent process ended while the call awaited approval (it was not approved).`;
    case 'running':
      return `Error: \`${name}\` was interrupted: the agent process ended before the call returned; it may have run in part.`;
    case 'unknown':
      return `Error: \`${name}\` has no result: the session was interrupted before the call returned.`;
  }
}

/** The calls of a batch, skipping entries a damaged log may hold that are not calls. */
export function callsOf(data: unknown): ToolCallRequest[] {
  const calls = typeof data === 'object' && data !== null && 'toolCalls' in data ? data.toolCalls : undefined;
  if (!Array.isArray(calls)) return [];
  return calls.filter(
    (call): call is ToolCallRequest =>
      typeof call === 'object' &&
      call !== null &&
      typeof (call as ToolCallRequest).callId === 'string' &&
      typeof (call as ToolCallRequest).name === 'string',
  );
}

/**
 * The calls of the last `assistant/message` at or after `from` that have no `tool/result`, in batch order.
 * @param events the log
 * @param from the index of the open turn's `turn/start`
 */
export function unansweredCalls(events: readonly UncheckedEvent[], from: number): UnansweredCall[] {
  let batch = -1;
  for (let i = events.length - 1; i >= from; i--) {
    if (events[i]!.type === 'assistant/message') {
      batch = i;
      break;
    }
  }
  if (batch === -1) return [];
  const called = new Set<string>();
  const asked = new Set<string>();
  const decided = new Set<string>();
  const answered = new Set<string>();
  for (let i = batch + 1; i < events.length; i++) {
    const event = events[i]!;
    const { data } = event;
    const id = typeof data === 'object' && data !== null && 'callId' in data ? data.callId : undefined;
    if (typeof id !== 'string') continue;
    if (event.type === 'tool/call') called.add(id);
    else if (event.type === 'approval/asked') asked.add(id);
    else if (event.type === 'approval/decided') decided.add(id);
    else if (event.type === 'tool/result') answered.add(id);
  }
  return callsOf(events[batch]!.data)
    .filter((call) => !answered.has(call.callId))
    .map((call) => {
      const wasCalled = called.has(call.callId);
      const at: InterruptedAt = !wasCalled
        ? 'before-call'
        : asked.has(call.callId) && !decided.has(call.callId)
          ? 'awaiting-approval'
          : 'running';
      return { call, called: wasCalled, at };
    });
}
