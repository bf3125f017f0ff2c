/**
 * The hard layer: what may run (DESIGN.md invariant 4). A synchronous guard (`ctx.tools.guard()`), not a
 * `tools/pre-execute` listener: the tool runtime takes the most restrictive of its verdict and the waterfall's, so
 * no listener, whatever its registration order, can let through a call the gate denies or asks about. It judges
 * every call by the *landed* mode of its agent's session (the fold, never a pending intent), so enforcement
 * matches the request header the model was sent. A registered, hallucinated or foreign-added tool is judged the
 * same way: the filter alone cannot stop a call by name.
 *
 * Verdicts: no agent → allow (no session to fold); allow → allow (the waterfall may still narrow it), except for
 * `exit_plan_mode`, which always asks (invariant 7: leaving a mode needs a human's approval) unless an earlier
 * exit of the same step was already approved (then it is denied, unasked); ask → `{kind: 'ask', reason}` (the
 * tool runtime routes it to `ctx.approval`); deny → `{kind: 'deny', reason}` with a reason that names the mode,
 * points at `exit_plan_mode` where that tool is available, or carries the rule's own reason. A folded mode this
 * deployment does not define denies everything (invariant 9).
 * @module
 */
import type { Authorizer, PreExecuteResult } from '../host/types.js';
import { askReason, denyReason } from './authorize.js';
import type { ModeCore } from './core.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE } from './vocabulary.js';

/**
 * The error an `exit_plan_mode` call gets when an earlier call of the same step was already approved: it is not
 * asked, so the user's answer to the first plan is never overridden by a second question in the same batch.
 * @param mode the landed (planning) mode
 * @returns the deny reason
 */
export function alreadyApprovedReason(mode: string): string {
  return (
    `the plan was already approved in this step, so this ${EXIT_PLAN_MODE} call was not shown to the user; ` +
    `the session leaves ${mode} mode at the end of this step: carry out the approved plan`
  );
}

/**
 * Builds the gate.
 * @param core the engine state
 * @returns the guard to register with `ctx.tools.guard()`
 */
export function createGate(core: ModeCore): Authorizer {
  return (exec) => {
    if (!exec.agent) return ALLOW;
    const session = exec.agent.session;
    const mode = core.mode(session);
    const judgement = core.judge(mode, exec.name);
    switch (judgement.kind) {
      case 'default':
        return exec.name === EXIT_PLAN_MODE
          ? { kind: 'deny', reason: denyReason(core, mode, exec.name) }
          : ALLOW;
      case 'undefined-mode':
        return { kind: 'deny', reason: denyReason(core, mode, exec.name) };
      case 'policy':
        if (judgement.decision === 'deny') {
          return { kind: 'deny', reason: denyReason(core, mode, exec.name, judgement.reason) };
        }
        if (exec.name === EXIT_PLAN_MODE) {
          // One approval per step: a later exit of the same batch is not asked (it could only repeat or contradict
          // the answer that already decided where the session goes at this step's end).
          if (core.exitApproved(session)) return { kind: 'deny', reason: alreadyApprovedReason(mode) };
          // The exit always asks (invariant 7): a mode that allows it (`default: allow`, a glob) must not let the
          // model leave it, and run what it denies, without a human's approval.
          return { kind: 'ask', reason: askReason(mode, exec.name, judgement.reason) };
        }
        return judgement.decision === 'allow'
          ? ALLOW
          : { kind: 'ask', reason: askReason(mode, exec.name, judgement.reason) };
    }
  };
}

const ALLOW: PreExecuteResult = { kind: 'allow' };
