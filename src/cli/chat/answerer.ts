/**
 * The terminal approval answerer: an `approval/request` listener for the chat's own agent. For `exit_plan_mode`
 * it shows the plan and asks approve / edit / keep planning (`plan-review.ts`); for any other asked tool it names
 * the call. The answer is
 * one line: `y`/`yes` approves, `n`/`no` or an empty line rejects, any other text rejects with that text as the
 * feedback, and the end of input (or a cancelled turn) cancels (docs/apps.md). The question goes through
 * the shared terminal, so it never competes with the REPL prompt.
 * @module
 */
import type { Context } from 'cordis';
import type { Agent, ApprovalOutcome, ApprovalRequest } from '../../host/types.js';
import type { Printer } from './render.js';
import { describeArgs, visible } from './render.js';
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
    if (plan) {
      const outcome = await reviewPlan(
        {
          arguments: request.arguments,
          markdown: plan.markdown,
          card: (text) =>
            planOf(ctx, { ...request, arguments: { ...asObject(request.arguments), plan: text } })!,
          box,
          ...maxPlanLength(ctx, request.toolName),
          terminal,
          printer,
          vars: options.vars ?? process.env,
          ...(request.signal ? { signal: request.signal } : {}),
        },
        parseAnswer,
      );
      printer.line(`  → ${describeOutcome(outcome)}`);
      return outcome;
    }
    // The whole call: a clipped summary would let a long harmless prefix hide what is being approved.
    printer.line(box(request.toolName, JSON.stringify(request.arguments ?? {}, null, 2)));
    const why = request.reason ? ` (${request.reason})` : '';
    const question = visible(
      `Allow ${request.toolName}${describeArgs(request.arguments)}${why}? y / n / feedback: `,
      'line',
    );
    const outcome = parseAnswer(await terminal.ask(question, request.signal));
    printer.line(`  → ${describeOutcome(outcome)}`);
    return outcome;
  });
}

/**
 * A titled box around untrusted text: every line of the body is escaped and starts with the border, so no line
 * of a plan can pass for the chat's own (an approval outcome, a tool line, the question).
 * @param title the box's title (one line)
 * @param body the text shown inside
 */
export function box(title: string, body: string): string {
  const lines = body.split('\n').map((line) => (line === '' ? '│' : `│ ${visible(line, 'line')}`));
  return [`\n┌ ${visible(title, 'line')}`, ...lines, `└${'─'.repeat(59)}`].join('\n');
}

function describeOutcome(outcome: ApprovalOutcome): string {
  switch (outcome.outcome) {
    case 'allowed-once':
      return outcome.arguments !== undefined ? 'approved (the edited plan)' : 'approved';
    case 'rejected':
      return outcome.feedback ? `rejected with feedback: ${visible(outcome.feedback, 'line')}` : 'rejected';
    case 'cancelled':
      return 'cancelled';
    case 'unavailable':
      return 'unavailable';
  }
}
