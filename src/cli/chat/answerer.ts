/**
 * The terminal approval answerer: an `approval/request` listener for the chat's own agent. For `exit_plan_mode`
 * it shows the plan and asks approve / keep planning; for any other asked tool it names the call. The answer is
 * one line: `y`/`yes` approves, `n`/`no` or an empty line rejects, any other text rejects with that text as the
 * feedback, `/exit` cancels and leaves the chat, and the end of input (or a cancelled turn) cancels (docs/apps.md).
 * A `write` or `edit` is shown as a diff of its file (diff.ts). The question goes through
 * the shared terminal, so it never competes with the REPL prompt.
 * @module
 */
import type { Context } from 'cordis';
import type { Agent, ApprovalOutcome, ApprovalRequest } from '../../host/types.js';
import { callCardBody } from './diff.js';
import type { Printer } from './render.js';
import { bodyLines, describeArgs, planBody, visible } from './render.js';
import type { Terminal } from './terminal.js';

// Kept importable from here, where it first lived (H10); it moved to render.ts so streamed text shares it.
export { visible } from './render.js';

/**
 * Maps one answer line to an outcome.
 * @param line the line read, or null at the end of input
 */
export function parseAnswer(line: string | null): ApprovalOutcome {
  if (line === null) return { outcome: 'cancelled' };
  const text = line.trim();
  const word = text.toLowerCase();
  if (word === 'y' || word === 'yes') return { outcome: 'allowed-once' };
  if (word === '' || word === 'n' || word === 'no') return { outcome: 'rejected' };
  return { outcome: 'rejected', feedback: text };
}

/** The plan text of an `exit_plan_mode` call, and its card title. */
function planOf(ctx: Context, request: ApprovalRequest): { title: string; markdown: string } | null {
  if (request.toolName !== 'exit_plan_mode') return null;
  const tool = ctx.tools.get(request.toolName);
  try {
    const card = tool?.present?.(request.arguments);
    if (card?.markdown !== undefined) return { title: card.title, markdown: card.markdown };
  } catch {
    // a presenter failing on odd arguments: fall back to the raw plan below
  }
  const plan = (request.arguments as { plan?: unknown } | null)?.plan;
  return { title: 'Plan', markdown: typeof plan === 'string' ? plan : JSON.stringify(request.arguments) };
}

/**
 * Registers the answerer for `agent`.
 * @param ctx the deployment's context
 * @param agent the chat's agent (questions for other agents pass on)
 * @param terminal the shared terminal
 * @param printer the chat's printer
 * @returns a disposer
 */
export function answerApprovals(
  ctx: Context,
  agent: Agent,
  terminal: Terminal,
  printer: Printer,
): () => void {
  return ctx.on('approval/request', async (request, next) => {
    if (request.agent !== agent) return next();
    const plan = planOf(ctx, request);
    printer.endLine();
    let question: string;
    if (plan) {
      printer.card(plan.title, bodyLines(planBody(plan.title, plan.markdown)));
      question = 'Approve this plan? y = approve, n = keep planning, or type feedback: ';
    } else {
      // The whole call: a clipped summary would let a long harmless prefix hide what is being approved. A
      // `write` or `edit` shows its change as a diff of the file.
      const workspace = request.agent?.workspace ?? ctx.tools.workspace;
      printer.card(request.toolName, await callCardBody(request.toolName, request.arguments, workspace));
      const why = request.reason ? ` (${request.reason})` : '';
      question = visible(
        `Allow ${request.toolName}${describeArgs(request.arguments)}${why}? y / n / feedback: `,
        'line',
      );
    }
    const line = await terminal.ask(question, request.signal);
    if (isLeaveCommand(line)) {
      // `/exit` here leaves the chat, as at the prompt: the question is cancelled, never sent as feedback.
      printer.own(printer.paint('yellow', '  → cancelled (leaving the chat)'));
      terminal.requestLeave();
      return { outcome: 'cancelled' };
    }
    const outcome = parseAnswer(line);
    printer.own(`  → ${printer.paint(OUTCOME_STYLE[outcome.outcome], describeOutcome(outcome))}`);
    return outcome;
  });
}

/** `/exit` or `/quit`, the commands that leave the chat. */
export function isLeaveCommand(line: string | null): boolean {
  const word = line?.trim().toLowerCase();
  return word === '/exit' || word === '/quit';
}

const OUTCOME_STYLE = {
  'allowed-once': 'green',
  rejected: 'yellow',
  cancelled: 'yellow',
  unavailable: 'yellow',
} as const;

function describeOutcome(outcome: ApprovalOutcome): string {
  switch (outcome.outcome) {
    case 'allowed-once':
      return 'approved';
    case 'rejected':
      return outcome.feedback ? `rejected with feedback: ${visible(outcome.feedback, 'line')}` : 'rejected';
    case 'cancelled':
      return 'cancelled';
    case 'unavailable':
      return 'unavailable';
  }
}
