/**
 * The answer to a hook, in the form each agent honours (docs/agents.md, verified against the pinned versions):
 * - Claude Code: always exit 0 with valid JSON, since output that is not JSON lets the call run even with
 *   `onFailure: "block"`. Deny and ask carry `permissionDecision` and a reason. dsh-mode's allow is no objection:
 *   `{}`, so Claude Code's own permission rules still apply (an `allow` would skip them);
 * - Codex: deny is `permissionDecision: "deny"` with a non-empty reason; allow is no output (a bare `allow` counts
 *   as a failed hook). It cannot ask from a hook, so an ask is a deny that says how the user allows it;
 * - Gemini CLI: deny is `{"decision": "deny", "reason"}`; allow is no output. A headless run never returns from
 *   `ask`, and the input cannot tell headless from interactive, so an ask is a deny as for Codex;
 * - OpenCode: the plugin throws on deny and ask (`opencode-plugin.ts`).
 *
 * Every deny carries its reason, and when the answer cannot be written at all the process exits 2 with the reason
 * on stderr: exit 2 with nothing on stderr lets the call run in Codex and Gemini.
 * @module
 */
import type { AgentName } from './tables.js';

/** What the hook decided, in dsh-mode's terms. */
export interface HookAnswer {
  decision: 'allow' | 'ask' | 'deny';
  /** The reason the model (deny) or the person asked (ask) reads. */
  reason: string;
  /** How the user can allow what was asked, for agents that cannot ask (Codex, Gemini). */
  askHelp?: string;
}

/** What the hook process writes and how it exits. */
export interface HookReply {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** What the agent was told, in dsh-mode's terms (an ask the agent cannot ask is a deny). */
  told: 'allow' | 'ask' | 'deny';
}

/** Whether the agent can ask its user from a hook. */
export function canAsk(agent: AgentName): boolean {
  return agent === 'claude-code';
}

/**
 * Renders an answer for an agent's command (or http) hook.
 * @param agent the agent
 * @param answer the decision and its reason
 */
export function renderReply(agent: AgentName, answer: HookAnswer): HookReply {
  const told = answer.decision === 'ask' && !canAsk(agent) ? 'deny' : answer.decision;
  const reason =
    answer.decision === 'ask' && told === 'deny'
      ? `${answer.reason}: this call needs a person's approval, which ${agentTitle(agent)} cannot ask for from a hook, so it is denied${answer.askHelp ? `; ${answer.askHelp}` : ''}`
      : answer.reason;
  const nonEmpty = reason.trim() === '' ? 'dsh-mode denied this call' : reason;
  switch (agent) {
    case 'claude-code': {
      if (told === 'allow') return { stdout: '{}\n', stderr: '', exitCode: 0, told };
      const hookSpecificOutput = {
        hookEventName: 'PreToolUse',
        permissionDecision: told,
        permissionDecisionReason: nonEmpty,
      };
      return { stdout: `${JSON.stringify({ hookSpecificOutput })}\n`, stderr: '', exitCode: 0, told };
    }
    case 'codex': {
      if (told === 'allow') return { stdout: '', stderr: '', exitCode: 0, told };
      const hookSpecificOutput = {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: nonEmpty,
      };
      return { stdout: `${JSON.stringify({ hookSpecificOutput })}\n`, stderr: '', exitCode: 0, told };
    }
    case 'gemini':
      if (told === 'allow') return { stdout: '', stderr: '', exitCode: 0, told };
      return {
        stdout: `${JSON.stringify({ decision: 'deny', reason: nonEmpty })}\n`,
        stderr: '',
        exitCode: 0,
        told,
      };
    case 'opencode':
      // OpenCode's plugin runs in process and throws; a command hook of its kind does not exist.
      return { stdout: '', stderr: `${nonEmpty}\n`, exitCode: told === 'allow' ? 0 : 2, told };
  }
}

/** The agent's name for people. */
export function agentTitle(agent: AgentName): string {
  return { 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' }[agent];
}

/**
 * The deny for a hook that failed before it could decide: in every agent's dialect, with the reason.
 * @param agent the agent, or undefined when the command line named none that exists
 * @param message what went wrong
 */
export function failureReply(agent: AgentName | undefined, message: string): HookReply {
  const reason = `dsh-mode could not decide this call, so it is denied: ${message}`;
  if (agent === undefined) return { stdout: '', stderr: `${reason}\n`, exitCode: 2, told: 'deny' };
  const reply = renderReply(agent, { decision: 'deny', reason });
  // The reason on stderr too (the agents log it); where the answer has no stdout, exit 2 carries it.
  return agent === 'claude-code'
    ? reply
    : { ...reply, stderr: `${reason}\n`, exitCode: reply.stdout === '' ? 2 : 0 };
}
