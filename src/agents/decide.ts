/**
 * The decision for one agent call: `authorize()` in each mode the session is in, the most restrictive answer
 * winning. A session has one mode of record, its journal's (or the starting mode before it has one), and for
 * Claude Code a second source, its own `permission_mode` mapped by configuration. A source in the `default` mode
 * restricts nothing, so it is left out where another source names a mode (otherwise the default mode's "there is
 * no plan to approve" would deny Claude Code's own plan approval while it is in plan). A patch gives several calls;
 * all of them must be allowed.
 * @module
 */
import { authorize, type AuthorizeOptions, type PolicyLookup, type Verdict } from '../engine/authorize.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE } from '../engine/vocabulary.js';
import type { MappedCall } from './input.js';

/** One mode the session is in, and what says so. */
export interface ModeSource {
  mode: string;
  /** `journal`, `start` (the mode `install` configured, before the journal has one) or `permission_mode`. */
  source: string;
}

/** The deciding verdict, the call it was for, and the source whose mode gave it. */
export interface AgentDecision {
  verdict: Verdict;
  call: MappedCall;
  source: ModeSource;
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * Decides a mapped agent call.
 * @param policies the compiled modes
 * @param calls the calls the agent's call stands for (at least one)
 * @param sources the session's modes (at least one)
 * @param options how paths and programs are checked against the workspace
 * @returns the most restrictive verdict, the earlier source and call winning a tie
 */
export function decideCalls(
  policies: PolicyLookup,
  calls: readonly MappedCall[],
  sources: readonly ModeSource[],
  options: AuthorizeOptions = {},
): AgentDecision {
  if (calls.length === 0) throw new Error('internal error: no call to decide');
  const restricting = sources.filter((s) => s.mode !== DEFAULT_MODE);
  const judged = restricting.length > 0 ? restricting : sources.slice(0, 1);
  let best: AgentDecision | undefined;
  for (const source of judged) {
    for (const call of calls) {
      const verdict = authorize(policies, source.mode, call.call, options);
      if (best === undefined || RANK[verdict.decision] > RANK[best.verdict.decision])
        best = { verdict, call, source };
    }
  }
  return best!;
}

/** The tail authorize's deny reason has where `exit_plan_mode` is the way out. */
const EXIT_HINT = `; keep planning and present your plan with ${EXIT_PLAN_MODE} when ready`;

/**
 * The reason an agent's model reads: authorize's, with its way out of the mode said in that agent's terms (the
 * agents have no `exit_plan_mode`; Claude Code has its own `ExitPlanMode`, in its own plan mode).
 * @param verdict the deciding verdict
 * @param exitTool the agent's own plan-exit tool, when the session can use it
 * @param leave the command a user runs to leave the mode
 * @param subject the command or path the call is about, named when the verdict does not say it
 */
export function agentReason(
  verdict: Verdict,
  exitTool: string | undefined,
  leave: string,
  subject?: string,
): string {
  // A decision by name says nothing of the call: name the file or command it was about.
  const reason =
    verdict.subject === undefined && subject !== undefined && verdict.decision !== 'allow'
      ? insertSubject(
          verdict.reason,
          verdict.decision === 'deny' && verdict.reason.endsWith(EXIT_HINT) ? EXIT_HINT : '',
          subject,
        )
      : verdict.reason;
  if (verdict.decision !== 'deny' || !reason.endsWith(EXIT_HINT)) return `dsh-mode: ${reason}`;
  const head = reason.slice(0, -EXIT_HINT.length);
  const tail =
    exitTool === undefined
      ? `; keep planning and present your plan to the user: only the user can leave ${verdict.mode} mode (\`${leave}\`)`
      : `; keep planning and present your plan with ${exitTool} when ready`;
  return `dsh-mode: ${head}${tail}`;
}

function insertSubject(reason: string, tail: string, subject: string): string {
  const quoted = JSON.stringify(subject.length > 200 ? `${subject.slice(0, 197)}...` : subject);
  const head = reason.slice(0, reason.length - tail.length);
  return `${head} (${quoted})${tail}`;
}
