/**
 * The hard layer: what may run (DESIGN.md invariant 4). A `tools/pre-execute` listener, registered outermost, that
 * judges every call by the *landed* mode of its agent's session (the fold, never a pending intent), so enforcement
 * matches the request header the model was sent. A registered, hallucinated or foreign-added tool is judged the
 * same way: the filter alone cannot stop a call by name.
 *
 * Verdicts: no agent → `next()` (no session to fold); allow → `next()` (inner listeners still apply), except for
 * `exit_plan_mode`, which always asks (invariant 7: leaving a mode needs a human's approval); ask →
 * `{kind: 'ask', reason}` unless an inner listener denies (the tool runtime routes an ask to `ctx.approval`);
 * deny → `{kind: 'deny', reason}` with a reason that names the mode, points at `exit_plan_mode` where that tool is
 * available, or carries the rule's own reason. A folded mode this deployment does not define denies everything
 * (invariant 9).
 * @module
 */
import type { PreExecuteResult, ToolExec } from '../host/types.js';
import { askReason, denyReason } from './authorize.js';
import type { ModeCore } from './core.js';
import { DEFAULT_MODE, EXIT_PLAN_MODE } from './vocabulary.js';

/** The `tools/pre-execute` waterfall listener signature (the host's contract). */
export type PreExecuteListener = (
  exec: ToolExec,
  next: () => Promise<PreExecuteResult>,
) => Promise<PreExecuteResult>;

/**
 * Builds the gate.
 * @param core the engine state
 * @returns the listener to register with `{ prepend: true }`
 */
export function createGate(core: ModeCore): PreExecuteListener {
  return async (exec, next) => {
    if (!exec.agent) return next();
    const mode = core.mode(exec.agent.session);
    const judgement = core.judge(mode, exec.name);
    switch (judgement.kind) {
      case 'default':
        return exec.name === EXIT_PLAN_MODE
          ? { kind: 'deny', reason: denyReason(core, mode, exec.name) }
          : next();
      case 'undefined-mode':
        return { kind: 'deny', reason: denyReason(core, mode, exec.name) };
      case 'policy':
        switch (judgement.decision) {
          case 'allow':
          case 'ask': {
            // The exit always asks (invariant 7): a mode that allows it (`default: allow`, a glob) must not let
            // the model leave it, and run what it denies, without a human's approval.
            if (judgement.decision === 'allow' && exec.name !== EXIT_PLAN_MODE) return next();
            // Inner listeners still get their say: a deny from inside outranks our question (a ceiling).
            const inner = await next();
            if (inner.kind === 'deny') return inner;
            return { kind: 'ask', reason: askReason(mode, exec.name, judgement.reason) };
          }
          case 'deny':
            return { kind: 'deny', reason: denyReason(core, mode, exec.name, judgement.reason) };
        }
    }
  };
}
