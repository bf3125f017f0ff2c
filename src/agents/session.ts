/**
 * What a user does to an agent session from a terminal: `dsh-mode mode` (change its mode, the only way to leave
 * plan besides Claude Code's own plan approval) and `dsh-mode log` (read its decisions). Both find the session by
 * id, or the one whose journal was written last (`--latest`).
 * @module
 */
import { packageVersion } from '../apps/version.js';
import { DEFAULT_MODE } from '../engine/vocabulary.js';
import { agentPolicies } from './compiled.js';
import {
  appendAgentJournal,
  journalMode,
  journalPath,
  listSessions,
  readAgentJournal,
  type DecisionRecord,
} from './journal.js';
import type { AgentName } from './tables.js';
import type { UncheckedEvent } from '../host/types.js';

/** The session a command names. */
export interface SessionRef {
  agent: AgentName;
  workspace: string;
  /** The session id; undefined means the latest. */
  session?: string;
}

/** A session that cannot be found, or a mode that cannot be set: the message says which. */
export class SessionError extends Error {
  override readonly name = 'SessionError';
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Finds a session's journal.
 * @param create for `--session ID`: a journal that does not exist yet may be created (a mode set before the
 *   session's first call)
 */
export function findSession(ref: SessionRef, create = false): { session: string; file: string } {
  if (ref.session !== undefined) {
    if (!SESSION_ID.test(ref.session)) throw new SessionError(`\`${ref.session}\` is not a session id`);
    const file = journalPath(ref.workspace, ref.agent, ref.session);
    if (!create && readAgentJournal(file).events.length === 0)
      throw new SessionError(`no ${ref.agent} session \`${ref.session}\` in ${ref.workspace} (${file})`);
    return { session: ref.session, file };
  }
  const latest = listSessions(ref.workspace, ref.agent).at(-1);
  if (latest === undefined)
    throw new SessionError(
      `no ${ref.agent} session in ${ref.workspace} yet: the hook records one at its first call`,
    );
  return latest;
}

/**
 * Sets a session's mode: one `mode/flip` and `mode/set` appended to its journal.
 * @param mode the mode (`default`, or one the workspace's policies define)
 * @param env the environment (trust records, the kept deployment)
 * @returns the session, its mode before and after
 * @throws SessionError for an unknown mode or session
 */
export async function setSessionMode(
  ref: SessionRef,
  mode: string,
  env: NodeJS.ProcessEnv,
): Promise<{ session: string; file: string; before: string | undefined; mode: string }> {
  if (mode !== DEFAULT_MODE) {
    let policies;
    try {
      policies = (await agentPolicies(ref.workspace, env, packageVersion())).policies;
    } catch (error) {
      throw new SessionError(`${(error as Error).message}; only \`default\` can be set`);
    }
    if (policies.get(mode) === undefined) {
      const modes = [DEFAULT_MODE, ...policies.modes.keys()].map((m) => `\`${m}\``).join(', ');
      throw new SessionError(`the policies do not define the mode \`${mode}\`: the modes are ${modes}`);
    }
  }
  const { session, file } = findSession(ref, true);
  const before = journalMode(readAgentJournal(file).events);
  appendAgentJournal(ref.workspace, file, [
    { type: 'mode/flip', data: { mode, by: 'dsh-mode mode (the user)' } },
    { type: 'mode/set', data: { mode } },
  ]);
  return { session, file, before, mode };
}

/** A session's journal, read for `log`. */
export interface SessionLog {
  agent: AgentName;
  session: string;
  file: string;
  /** The current mode of record. */
  mode: string | undefined;
  events: UncheckedEvent[];
}

/** Reads a session's journal. */
export function readSessionLog(ref: SessionRef): SessionLog {
  const { session, file } = findSession(ref);
  const { events } = readAgentJournal(file);
  return { agent: ref.agent, session, file, mode: journalMode(events), events };
}

/**
 * One line per event, for people.
 * @param log the session's journal
 */
export function formatSessionLog(log: SessionLog): string {
  const lines = [`${log.agent} session ${log.session} (${log.file}): mode ${log.mode ?? DEFAULT_MODE}`];
  for (const e of log.events) {
    const time = e.time.slice(11, 19);
    const data = (e.data ?? {}) as Record<string, unknown>;
    switch (e.type) {
      case 'session/start':
        lines.push(`${time}  start  ${String(data.mode)} (from ${String(data.from)})`);
        break;
      case 'mode/flip':
        lines.push(`${time}  mode   ${String(data.mode)} (by ${String(data.by)})`);
        break;
      case 'hook/decision': {
        const d = data as unknown as DecisionRecord;
        const subject = d.subject === undefined ? '' : ` ${JSON.stringify(d.subject)}`;
        const by =
          d.decidedBy !== undefined && d.decidedBy !== d.subject ? ` at ${JSON.stringify(d.decidedBy)}` : '';
        const rule = d.pattern ?? d.rule;
        const told = d.answer !== d.decision ? ` (told ${d.answer})` : '';
        lines.push(
          `${time}  ${d.decision.padEnd(5)}  ${d.agentTool} as ${d.tool}${subject}${by} in ${d.mode} mode (${d.source}) by \`${rule.selector}\`${where(rule)}${told}`,
        );
        break;
      }
      default:
        break;
    }
  }
  return `${lines.join('\n')}\n`;
}

function where(rule: { file: string | null; line: number | null; column: number | null }): string {
  return rule.file === null ? '' : ` at ${rule.file}:${rule.line ?? '?'}:${rule.column ?? '?'}`;
}
