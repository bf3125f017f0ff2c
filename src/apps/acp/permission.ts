/**
 * The ACP approval answerer: an `approval/request` listener that turns an `ask` for a call of an ACP session's
 * agent into `session/request_permission` on the already streamed tool call (same `toolCallId`), with an
 * `allow_once` and a `reject_once` option ("Approve plan" / "Keep planning" for `exit_plan_mode`). Questions for
 * other agents pass on to the next answerer. A call without a card of its own shows the command (or path) in its
 * title and, whole, in its content with the reason it is asked (for an argument rule: the sub-command and the
 * pattern that ask). The rule that asks rides on the tool call as `_meta["dsh-mode/rule"]`
 * (selector, file, line, column). A rejection may carry feedback for the model in the response's
 * `_meta.feedback` (ACP itself has no field for it).
 * @module
 */
import type { PermissionOption, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalOutcome, ApprovalRequest } from '../../host/types.js';
import type { AcpSession } from './session-state.js';
import { callCard, inProgress, questionContent, ruleMeta, type ToolLookup } from './updates.js';

const ALLOW = 'allow';
const REJECT = 'reject';

/**
 * The two options offered for a call.
 * @param toolName the tool asking
 */
export function permissionOptions(toolName: string): PermissionOption[] {
  const exit = toolName === 'exit_plan_mode';
  return [
    { optionId: ALLOW, name: exit ? 'Approve plan' : 'Allow once', kind: 'allow_once' },
    { optionId: REJECT, name: exit ? 'Keep planning' : 'Reject', kind: 'reject_once' },
  ];
}

/**
 * Asks the client about one call and maps the answer to an approval outcome.
 * @param session the ACP session the call belongs to (and its client connection)
 * @param request the approval question
 * @param tools lookup for the call's card
 */
export async function askClient(
  session: AcpSession,
  request: ApprovalRequest,
  tools: ToolLookup,
): Promise<ApprovalOutcome> {
  // The tool_call card must be on the wire before the question that points at it.
  await session.flush();
  // The same bounded, escaped card as the streamed tool_call.
  const card = callCard(request.callId, request.toolName, request.arguments, tools);
  // A card without content of its own (every tool but exit_plan_mode's plan) shows what is being approved and why.
  const question = card.content === undefined ? questionContent(request.arguments, request.reason) : [];
  const toolCall: ToolCallUpdate = {
    ...card,
    ...(question.length > 0 ? { content: question } : {}),
    ...ruleMeta(request.rule),
  };
  try {
    // No cancellation signal on the request: a client that sends session/cancel answers its pending permission
    // requests `cancelled` itself (ACP), and the approval seam already stops waiting when the turn is aborted.
    const response = await session.client.request('session/request_permission', {
      sessionId: session.id,
      toolCall,
      options: permissionOptions(request.toolName),
    });
    const outcome = response.outcome;
    if (outcome.outcome === 'cancelled') return { outcome: 'cancelled' };
    if (outcome.optionId === ALLOW) {
      // Approved: the call runs next (only a cancel in between stops it, and its result then says so).
      session.send(inProgress(request.callId));
      return { outcome: 'allowed-once' };
    }
    if (outcome.optionId === REJECT) {
      // ACP has no field for rejection text; a client may send it as `_meta.feedback` and the model gets it.
      const feedback = response._meta?.feedback;
      return typeof feedback === 'string' && feedback.trim() !== ''
        ? { outcome: 'rejected', feedback: feedback.trim() }
        : { outcome: 'rejected' };
    }
    // An option id we never offered: fail closed.
    return { outcome: 'unavailable' };
  } catch {
    // The client errored or the turn was cancelled while waiting: never treat that as approval.
    return { outcome: request.signal?.aborted ? 'cancelled' : 'unavailable' };
  }
}
