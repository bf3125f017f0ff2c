/**
 * `dsh-mode hook AGENT`, as a function: one hook input in, one answer out, the decision journaled. The steps:
 * read the input through the agent's table (`input.ts`); find the session's modes (its journal, the starting mode
 * `install` configured, and Claude Code's `permission_mode`); decide with `authorize()` on the workspace's
 * compiled deployment (`policies.ts`), the most restrictive source winning (`decide.ts`); append the decision to
 * the journal; answer in the agent's dialect (`dialect.ts`).
 *
 * It fails closed: any error on the way (input, settings, journal, policies, a bug) is a deny whose reason says
 * what went wrong. A decision that cannot be journaled is denied too, since a call the log does not show must not
 * run. The default mode has no policy, so it needs none loaded: a session whose every source is `default` is
 * decided without reading the policies.
 *
 * Leaving a mode is never a tool call: the journal changes by `dsh-mode mode`, run by the user, and by Claude Code
 * leaving its own plan mode (its plan approval, or the user switching mode), seen as `permission_mode` moving off
 * `plan`, which only its user can do while dsh-mode's plan asks for `ExitPlanMode`.
 * @module
 */
import { fsPathResolver, fsProgramCheck } from '../compile/runtime.js';
import type { PolicyLookup } from '../engine/authorize.js';
import { DEFAULT_MODE, PLAN_MODE } from '../engine/vocabulary.js';
import { agentReason, decideCalls, type ModeSource } from './decide.js';
import { failureReply, renderReply, type HookAnswer, type HookReply } from './dialect.js';
import { readInput, type AgentInput } from './input.js';
import { appendAgentJournal, journalPath, readJournalTail, type DecisionRecord } from './journal.js';
import { agentPolicies } from './compiled.js';
import { packageVersion } from '../apps/version.js';
import { startSettings } from './settings.js';
import type { AgentName } from './tables.js';
import type { UncheckedEvent } from '../host/types.js';

/** Where a hook runs. */
export interface HookEnv {
  /** The folder for an input that names none. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A decided hook call: the reply and what was journaled. */
export interface HookOutcome {
  reply: HookReply;
  /** The decision as journaled; absent when the hook failed before deciding. */
  record?: DecisionRecord;
  /** The answer in dsh-mode's terms (for OpenCode's plugin, which throws rather than prints). */
  answer: HookAnswer;
}

const NO_POLICIES: PolicyLookup = { get: () => undefined };

/**
 * Decides one hook call. Never throws: every failure is a deny.
 * @param agent the agent
 * @param value the parsed hook input (a command hook's stdin, an http hook's body, OpenCode's `{input, output}`)
 * @param where the folder and environment
 */
export async function decideHook(agent: AgentName, value: unknown, where: HookEnv): Promise<HookOutcome> {
  try {
    return await decide(agent, readInput(agent, value, where.cwd), where);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reply = failureReply(agent, message);
    return {
      reply,
      answer: {
        decision: 'deny',
        reason: `dsh-mode could not decide this call, so it is denied: ${message}`,
      },
    };
  }
}

async function decide(agent: AgentName, input: AgentInput, where: HookEnv): Promise<HookOutcome> {
  const settings = startSettings(input.workspace, agent, where.env);
  const file = journalPath(input.workspace, agent, input.session);
  const tail = readJournalTail(file);
  const append: Array<{ type: string; data: unknown }> = [];
  if (tail.empty) {
    append.push({ type: 'session/start', data: { agent, mode: settings.mode, from: settings.from } });
    append.push({ type: 'mode/set', data: { mode: settings.mode } });
  }
  let mode = tail.mode ?? settings.mode;
  const recorded = tail.mode !== undefined || tail.empty;
  const mapped =
    input.permissionMode === undefined ? undefined : settings.permissionModes[input.permissionMode];
  // Claude Code left its own plan mode: only its user can do that (dsh-mode's plan asks for ExitPlanMode).
  const planMapsTo = settings.permissionModes[PLAN_MODE];
  if (
    agent === 'claude-code' &&
    input.permissionMode !== undefined &&
    input.permissionMode !== PLAN_MODE &&
    tail.lastDecision?.permissionMode === PLAN_MODE &&
    planMapsTo !== undefined &&
    mode === planMapsTo
  ) {
    const by = `Claude Code left its plan mode (permission_mode plan → ${input.permissionMode}): its user approved the plan or switched mode`;
    append.push({ type: 'mode/flip', data: { mode: DEFAULT_MODE, by } });
    append.push({ type: 'mode/set', data: { mode: DEFAULT_MODE } });
    mode = DEFAULT_MODE;
  }
  const sources: ModeSource[] = [
    { mode, source: tail.mode !== undefined ? 'journal' : `start (${settings.from})` },
  ];
  if (mapped !== undefined) {
    const own = agent === 'opencode' ? 'OpenCode agent' : 'permission_mode';
    sources.push({ mode: mapped, source: `${own} ${input.permissionMode}` });
  }

  const restricting = sources.some((s) => s.mode !== DEFAULT_MODE);
  const policies = restricting
    ? (await agentPolicies(input.workspace, where.env, packageVersion())).policies
    : NO_POLICIES;
  const options = restricting
    ? {
        resolvePath: fsPathResolver(input.workspace),
        checkProgram: fsProgramCheck(input.workspace, where.env),
      }
    : {};
  const decided = decideCalls(policies, input.calls, sources, options);
  const leave = `dsh-mode mode default --agent ${agent} --session ${input.session}`;
  const exitTool = agent === 'claude-code' && input.permissionMode === PLAN_MODE ? 'ExitPlanMode' : undefined;
  const answer: HookAnswer = {
    decision: decided.verdict.decision,
    reason: agentReason(decided.verdict, exitTool, leave, decided.call.subject),
    askHelp: `the user can allow it by switching mode in a terminal: ${leave}`,
  };
  const reply = renderReply(agent, answer);
  const { verdict } = decided;
  const record: DecisionRecord = {
    agentTool: input.agentTool,
    tool: decided.call.call.name,
    ...(decided.call.subject === undefined ? {} : { subject: decided.call.subject }),
    decision: verdict.decision,
    mode: verdict.mode,
    source: decided.source.source,
    rule: { ...verdict.rule },
    ...(verdict.pattern ? { pattern: { ...verdict.pattern } } : {}),
    ...(verdict.subject === undefined ? {} : { decidedBy: verdict.subject }),
    reason: reply.told === 'allow' ? verdict.reason : answer.reason,
    answer: reply.told,
    ...(input.permissionMode === undefined ? {} : { permissionMode: input.permissionMode }),
    // What a later reader needs to fold the journal without reading it all (`readJournalTail`).
    ...(recorded ? { of: mode, seen: tail.size } : {}),
  };
  append.push({ type: 'hook/decision', data: record });
  appendAgentJournal(input.workspace, file, append);
  return { reply, record, answer };
}

/**
 * Reads a command hook's stdin, at most `max` bytes.
 * @throws Error when there is more
 */
export async function readStdin(stream: NodeJS.ReadableStream, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buffer.length;
    if (total > max) throw new Error(`the hook input is larger than ${max} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
