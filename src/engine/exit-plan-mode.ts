/**
 * `exit_plan_mode` (invariant 7 in docs/architecture.md): the model proposes its plan, a human approves, the session returns to
 * the default mode. The plan rides the ordinary `tool/call` event, so it is a durable, replayable log artifact.
 *
 * Registered always, filtered out wherever its decision is deny (never visible in default), gated like any tool:
 * plan says `ask`, so the tool runtime asks `ctx.approval` and runs `execute` only on `allowed-once`. `execute`
 * then re-checks the landed mode (defence in depth) and parks a non-narrated intent to `default` that lands at
 * this step's `step/end` (a plan the user edited before approving comes back whole in the result), so later calls of the same assistant batch are still judged under the planning mode.
 * Every other outcome comes back through `onDenied` as a corrective error (a plan the user edited before rejecting
 * it comes back whole in that error, so their edit is not lost); an agent-less call is an error; after
 * the plugin is disposed (an approval that was pending at that moment) the call fails and nothing is recorded.
 * @module
 */
import type { ApprovalOutcome, Tool, ToolResult } from '../host/types.js';
import type { ModeCore } from './core.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE } from './vocabulary.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../compile/index.js';

/** The tool's arguments. */
export interface ExitPlanModeArgs {
  /** The plan, in markdown. */
  plan: string;
}

const DESCRIPTION =
  'Present your plan to the user for approval and leave plan mode. Call it once the plan is complete: ' +
  'the user approves or rejects it. On approval the full toolset returns on the next step; on rejection keep ' +
  'planning and revise the plan. Write the plan in markdown, starting with a heading.';

/**
 * The card title of a plan: its first markdown heading, or `Plan`.
 * @param plan the plan text
 * @returns the title
 */
export function planTitle(plan: string): string {
  const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/m.exec(plan);
  const title = heading?.[1]?.trim();
  return title ? title : 'Plan';
}

/**
 * The result text when the approval did not allow the exit.
 * @param outcome the approval outcome
 * @returns the corrective error text (with the host's `Error: ` prefix)
 */
export function exitDeniedText(outcome: Exclude<ApprovalOutcome, { outcome: 'allowed-once' }>): string {
  switch (outcome.outcome) {
    case 'rejected': {
      // A plan the user edited before rejecting comes back whole: the next draft starts from their text.
      const revised = (outcome.arguments as { plan?: unknown } | undefined)?.plan;
      if (typeof revised === 'string') {
        const head = outcome.feedback
          ? `Error: the user edited the plan, then rejected it: ${outcome.feedback}; keep planning and revise`
          : 'Error: the user edited the plan, then rejected it; keep planning, ask the user what else to change, and revise';
        return `${head} their version below, not your draft. The user's version:\n\n${revised}`;
      }
      return outcome.feedback
        ? `Error: the user rejected the plan: ${outcome.feedback}; keep planning and revise it`
        : 'Error: the user rejected the plan; keep planning, ask the user what to change, and revise it';
    }
    case 'cancelled':
      return (
        'Error: the approval of the plan was cancelled, so the session stays in its planning mode; ' +
        'ask the user to switch mode when they want you to proceed'
      );
    case 'unavailable':
      // The host refused the approver's edit of the plan: the plan was approved, but not in a form that can run.
      return outcome.reason !== undefined
        ? `Error: ${outcome.reason}, so the session stays in its planning mode; revise the plan and present it again`
        : 'Error: no one can approve the plan here, so the session stays in its planning mode; ' +
            'ask the user to switch mode to proceed';
  }
}

function error(content: string): ToolResult {
  return { content: `Error: ${content}`, isError: true };
}

/** The tool's parameter schema (also what `dsh-mode catalog` writes as its `inputSchema`). */
export const EXIT_PLAN_MODE_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    plan: {
      type: 'string',
      minLength: 1,
      // A plan is read by a person: bounded so that a client can always show it whole.
      maxLength: 100_000,
      pattern: '\\S',
      description: 'The plan, in markdown: what you will change and how, starting with a heading.',
    },
  },
  required: ['plan'],
  additionalProperties: false,
});

/**
 * Builds the tool.
 * @param core the engine state
 * @returns the tool to register with `ctx.tools.register`
 */
export function createExitPlanModeTool(core: ModeCore): Tool<ExitPlanModeArgs> {
  return {
    name: EXIT_PLAN_MODE,
    description: DESCRIPTION,
    // A copy per tool: the runtime compiles and removes schemas by object.
    parameters: structuredClone(EXIT_PLAN_MODE_PARAMETERS),
    annotations: BUILTIN_TOOL_ANNOTATIONS.exit_plan_mode,
    execute(args, context) {
      if (!context.agent)
        return error(`${EXIT_PLAN_MODE} needs an agent: there is no session whose mode it could end`);
      if (core.disposed) {
        return error(
          'the mode engine was unloaded while the plan awaited approval; the session did not leave its mode',
        );
      }
      if (typeof args?.plan !== 'string' || args.plan.trim() === '')
        return error('the plan is empty: write it first');
      const session = context.agent.session;
      const mode = core.mode(session);
      if (core.verdict(mode, EXIT_PLAN_MODE).decision === 'deny') {
        return error(`${EXIT_PLAN_MODE} is not available in ${mode} mode`);
      }
      core.park(session, { mode: DEFAULT_MODE, narrate: false });
      // The approved exit replaces any user flip still pending, in memory and on disk.
      core.forget(session);
      // The gate asks for the exit whatever the mode's decision, so reaching here means a human approved it.
      const leaving =
        `The session leaves ${mode} mode at the end of this step and the full toolset returns on the ` +
        'next step; until then the rest of this step is still judged under ' +
        `${mode} mode.`;
      // An edited plan comes back whole: the model must carry out the user's text, not its own draft.
      if (context.edited) {
        return {
          content:
            `The user edited the plan and approved the edited version; carry out this plan, not your draft. ${leaving}` +
            `\n\nThe approved plan:\n\n${args.plan}`,
        };
      }
      return { content: `The user approved the plan. ${leaving} Carry out the plan.` };
    },
    onDenied: (outcome) => ({ content: exitDeniedText(outcome), isError: true }),
    present(args) {
      const plan = typeof args?.plan === 'string' ? args.plan : '';
      return { title: planTitle(plan), markdown: plan };
    },
  };
}
