/**
 * The terminal approval answerer: an `approval/request` listener for the chat's own agent. For `exit_plan_mode`
 * it shows the plan and asks approve / edit / keep planning (`plan-review.ts`); for any other asked tool it names
 * the call. The answer is
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
import { reviewPlan } from './plan-review.js';
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

function asObject(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}

/** The `maxLength` the tool's schema sets for `plan`, so an edit past it is refused before it is sent. */
function maxPlanLength(ctx: Context, toolName: string): { maxLength?: number } {
  const parameters = ctx.tools.get(toolName)?.parameters as
    { properties?: { plan?: { maxLength?: unknown } } } | undefined;
  const max = parameters?.properties?.plan?.maxLength;
  return typeof max === 'number' ? { maxLength: max } : {};
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
 * @param options `vars`: the environment the plan editor is chosen from (default `process.env`)
 * @returns a disposer
 */
export function answerApprovals(
  ctx: Context,
  agent: Agent,
  terminal: Terminal,
  printer: Printer,
  options: { vars?: NodeJS.ProcessEnv } = {},
): () => void {
  return ctx.on('approval/request', async (request, next) => {
    if (request.agent !== agent) return next();
    const plan = planOf(ctx, request);
    printer.endLine();
    // `/exit` at a question leaves the chat, as at the prompt: the question is cancelled, never sent as feedback.
    let leaving = false;
    const answer = (line: string | null): ApprovalOutcome => {
      if (!isLeaveCommand(line)) return parseAnswer(line);
      leaving = true;
      terminal.requestLeave();
      return { outcome: 'cancelled' };
    };
    let outcome: ApprovalOutcome;
    if (plan) {
      outcome = await reviewPlan(
        {
          arguments: request.arguments,
          markdown: plan.markdown,
          card: (text) =>
            planOf(ctx, { ...request, arguments: { ...asObject(request.arguments), plan: text } })!,
          show: (card) => printer.card(card.title, bodyLines(planBody(card.title, card.markdown))),
          ...maxPlanLength(ctx, request.toolName),
          terminal,
          printer,
          vars: options.vars ?? process.env,
          ...(request.signal ? { signal: request.signal } : {}),
        },
        answer,
      );
    } else {
      // The whole call: a clipped summary would let a long harmless prefix hide what is being approved. A
      // `write` or `edit` shows its change as a diff of the file.
      const workspace = request.agent?.workspace ?? ctx.tools.workspace;
      printer.card(request.toolName, await callCardBody(request.toolName, request.arguments, workspace));
      const why = request.reason ? ` (${request.reason})` : '';
      const question = visible(
        `Allow ${request.toolName}${describeArgs(request.arguments)}${why}? y / n / feedback: `,
        'line',
      );
      outcome = answer(await terminal.ask(question, request.signal));
    }
    const said = leaving ? 'cancelled (leaving the chat)' : describeOutcome(outcome);
    printer.own(`  → ${printer.paint(OUTCOME_STYLE[outcome.outcome], said)}`);
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
      return outcome.arguments !== undefined ? 'approved (the edited plan)' : 'approved';
    case 'rejected': {
      const said = outcome.feedback
        ? `rejected with feedback: ${visible(outcome.feedback, 'line')}`
        : 'rejected';
      return outcome.arguments !== undefined ? `${said} (your edited plan goes back to the model)` : said;
    }
    case 'cancelled':
      return 'cancelled';
    case 'unavailable':
      return 'unavailable';
  }
}
