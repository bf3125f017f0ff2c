/**
 * The hard layer: what may run (invariant 4 in docs/architecture.md). A synchronous guard (`ctx.tools.guard()`), not a
 * `tools/pre-execute` listener: the tool runtime takes the most restrictive of its verdict and the waterfall's, so
 * no listener, whatever its registration order, can let through a call the gate denies or asks about. It judges
 * every call by the *landed* mode of its agent's session (the fold, never a pending intent), so enforcement
 * matches the request header the model was sent. A registered, hallucinated or foreign-added tool is judged the
 * same way: the filter alone cannot stop a call by name.
 *
 * The decision is `authorize()`'s, for the landed mode, with the registered tool's annotations as hints: its
 * reason and deciding rule (`rule`: selector and file:line:column, which the runtime copies into `approval/asked`
 * and the deny result) pass through unchanged, and so does a deny's `userReason` (the sentence a chat shows the
 * user instead of the model's next-step advice). The gate adds only what needs the session:
 * - no agent → allow (no session to fold); an `allow` verdict → allow (the waterfall may still narrow it);
 * - an allow or ask that requires an OS sandbox (`verdict.sandbox`: `bash` in a mode with `sandbox: read-only`)
 *   carries it as `sandbox`, with the `sandbox` key as its rule: the runtime runs the call in the sandbox, or
 *   denies it where none can start;
 * - an allow or ask carries the path resolutions the decision used (`paths`), which the runtime hands to the
 *   tool: the tool opens exactly what was decided on, and refuses if it changed since;
 * - an `exit_plan_mode` call when an earlier exit of the same step was already approved → deny, unasked, with
 *   `EXIT_ALREADY_APPROVED_RULE`.
 * @module
 */
import type { ResolvedWorkspacePath, WorkspacePathResolution } from '../files/resolve-path.js';
import type { Authorizer, CheckedPaths, PreExecuteResult, SandboxRequirement } from '../host/types.js';
import type { RuleRef } from '../compile/types.js';
import type { ModeCore } from './core.js';
import { EXIT_PLAN_MODE } from './vocabulary.js';

/** The rule reported for an exit denied because an earlier exit of the same step was already approved. */
export const EXIT_ALREADY_APPROVED_RULE: RuleRef = Object.freeze({
  selector: '(exit already approved in this step)',
  file: null,
  line: null,
  column: null,
});

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
 * What the user reads for an exit denied because the plan was already approved in this step.
 * @returns the sentence
 */
export function alreadyApprovedUserReason(): string {
  return `the plan was already approved in this step, so this ${EXIT_PLAN_MODE} call was not asked`;
}

/**
 * Builds the gate.
 * @param core the engine state
 * @param hostWorkspace the host's workspace, for an agent that names none (read once: it never changes)
 * @returns the guard to register with `ctx.tools.guard()`
 */
export function createGate(core: ModeCore, hostWorkspace: string): Authorizer {
  return (exec) => {
    if (!exec.agent) return ALLOW;
    const session = exec.agent.session;
    const mode = core.mode(session);
    // The arguments may decide too (argument rules), and paths resolve where the tool will run; the resolutions
    // decided on go to the tool, which opens exactly them.
    const record = new Map<string, WorkspacePathResolution>();
    const verdict = core.verdict(mode, exec.name, {
      arguments: exec.arguments,
      workspace: exec.agent.workspace ?? hostWorkspace,
      record,
    });
    // A call of a program-running tool in a mode that requires a sandbox carries the requirement to the runtime,
    // which runs it sandboxed or denies it.
    const sandbox: { sandbox?: SandboxRequirement } =
      verdict.sandbox?.kind === 'read-only'
        ? { sandbox: Object.freeze({ kind: 'read-only', rule: verdict.sandbox.rule }) }
        : {};
    const paths = checkedPaths(record);
    const carried = { ...sandbox, ...(paths ? { paths } : {}) };
    if (verdict.decision === 'allow')
      return carried.sandbox || carried.paths ? Object.freeze({ kind: 'allow', ...carried }) : ALLOW;
    // One approval per step: a later exit of the same batch is not asked (it could only repeat or contradict
    // the answer that already decided where the session goes at this step's end).
    if (verdict.decision === 'ask' && exec.name === EXIT_PLAN_MODE && core.exitApproved(session)) {
      return {
        kind: 'deny',
        reason: alreadyApprovedReason(mode),
        userReason: alreadyApprovedUserReason(),
        rule: EXIT_ALREADY_APPROVED_RULE,
      };
    }
    if (verdict.decision === 'ask')
      return { kind: 'ask', reason: verdict.reason, rule: verdict.rule, ...carried };
    return {
      kind: 'deny',
      reason: verdict.reason,
      ...(verdict.userReason !== undefined ? { userReason: verdict.userReason } : {}),
      rule: verdict.rule,
    };
  };
}

const ALLOW: PreExecuteResult = Object.freeze({ kind: 'allow' });

/** The resolved paths of a decision (a refused one denied the call), or undefined when it looked at none. */
function checkedPaths(record: ReadonlyMap<string, WorkspacePathResolution>): CheckedPaths | undefined {
  const paths = new Map<string, ResolvedWorkspacePath>();
  for (const [path, resolution] of record) if (resolution.ok) paths.set(path, resolution);
  return paths.size > 0 ? paths : undefined;
}
