/**
 * The chat's review of a plan (`exit_plan_mode`): the plan in a box, then the question. `y` approves, `e` opens
 * the plan in the user's editor (`plan-editor.ts`) and comes back to the question with the edited plan shown, `n`
 * or an empty line keeps planning, other text keeps planning with that text as feedback, and the end of input
 * cancels.
 *
 * An approval after an edit carries the edited plan as the call's revised arguments: that text is what is
 * approved, what the model is told to carry out and what the journal records (`approval/decided` with `edited`
 * and the text's `sha256`). An edit that empties the plan or makes it longer than the tool allows is refused, and
 * a cancelled edit (the editor failed, or left the file unchanged) changes nothing: both come back to the
 * question with a line saying so. A rejection after an edit keeps the edit: it carries the edited plan as the
 * revised arguments, so the model is told to keep planning from the user's version and the journal records that
 * version and its `sha256`.
 * @module
 */
import type { ApprovalOutcome } from '../../host/types.js';
import { editorCommand, editText, type EditResult } from './plan-editor.js';
import type { Printer } from './render.js';
import type { Terminal } from './terminal.js';

/** The question under a plan. */
export const PLAN_QUESTION =
  'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: ';

/** What a review runs with. */
export interface PlanReview {
  /** The call's arguments (`{plan}`): an approved edit revises their `plan`. */
  arguments: unknown;
  /** The plan text as the model wrote it. */
  markdown: string;
  /** The card of a plan text: its title and what the box shows. */
  card(plan: string): { title: string; markdown: string };
  /** Shows a plan's card (the printer's escaping box). */
  show(card: { title: string; markdown: string }): void;
  /** The most characters the tool takes for a plan, when its schema says. */
  maxLength?: number;
  terminal: Terminal;
  printer: Printer;
  /** The variables the editor is chosen from (`VISUAL`, `EDITOR`) and runs with. */
  vars: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/**
 * Whether an answer asks for the editor.
 * @param line the answer
 */
export function isEditAnswer(line: string): boolean {
  const word = line.trim().toLowerCase();
  return word === 'e' || word === 'edit';
}

/**
 * Shows the plan and asks until the user answers.
 * @param review the plan and the chat's parts
 * @param parseAnswer maps a non-edit answer to an outcome
 * @returns the outcome; an approval or a rejection of an edited plan carries the revised arguments
 */
export async function reviewPlan(
  review: PlanReview,
  parseAnswer: (line: string | null) => ApprovalOutcome,
): Promise<ApprovalOutcome> {
  const { terminal, printer } = review;
  let plan = review.markdown;
  let show = true;
  for (;;) {
    if (show) {
      review.show(review.card(plan));
    }
    show = false;
    const line = await terminal.ask(PLAN_QUESTION, review.signal);
    if (line === null || !isEditAnswer(line)) {
      const outcome = parseAnswer(line);
      const edited = plan !== review.markdown;
      if (outcome.outcome === 'allowed-once' && edited) {
        return { outcome: 'allowed-once', arguments: { ...argumentsObject(review.arguments), plan } };
      }
      if (outcome.outcome === 'rejected' && edited) {
        // The edit is kept: the model gets the user's version to keep planning from, and the log records it.
        return { ...outcome, arguments: { ...argumentsObject(review.arguments), plan } };
      }
      return outcome;
    }
    const command = editorCommand(review.vars, terminal.tty);
    if (command === null) {
      printer.line('  → no editor: set $VISUAL or $EDITOR to edit the plan');
      continue;
    }
    const edit = (): Promise<EditResult> =>
      editText(plan, {
        command,
        tty: terminal.tty,
        env: review.vars,
        ...(review.signal ? { signal: review.signal } : {}),
      });
    const result = terminal.lend ? await terminal.lend(edit) : await edit();
    if (review.signal?.aborted) return { outcome: 'cancelled' };
    if (result.kind === 'failed') {
      printer.line(`  → edit cancelled: ${result.message}; the plan is unchanged`);
    } else if (result.kind === 'unchanged') {
      printer.line('  → edit cancelled: the file was left unchanged; the plan is unchanged');
    } else if (result.text.trim() === '') {
      printer.line('  → the edited plan is empty, so it was not taken; the plan is unchanged');
    } else if (review.maxLength !== undefined && result.text.length > review.maxLength) {
      printer.line(
        `  → the edited plan is longer than ${review.maxLength} characters, so it was not taken; the plan is unchanged`,
      );
    } else {
      plan = result.text;
      show = true;
      printer.line(
        plan === review.markdown
          ? '  → edited back to the model’s plan'
          : '  → plan edited; this is the plan you would approve:',
      );
    }
  }
}

function argumentsObject(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}
