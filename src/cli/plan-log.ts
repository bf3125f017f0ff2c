/**
 * The plans of a workspace, read from its session logs: the log is the one home of a plan, and this only reads
 * it (no lock, no write, no index beside it). A plan is an `exit_plan_mode` call (`tool/call`); its text is the
 * call's `plan`, or the revised `plan` its `approval/decided` records when the user edited it; its outcome comes
 * from that decision and the call's `tool/result`.
 *
 * Logs are found and opened as the host opens them for reading (`journal-path.ts`, `journal-file.ts`): only
 * `<id>.jsonl` files in `<workspace>/.dsh/sessions`, never through a symbolic link, each checked to be a journal.
 * Payloads are read as unchecked data: a hand-edited line cannot make this throw, only drop what it garbles.
 * @module
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { planTitle } from '../engine/exit-plan-mode.js';
import { EXIT_PLAN_MODE } from '../engine/vocabulary.js';
import { readJournal } from '../host/journal-file.js';
import { checkExistingLog, checkFolders } from '../host/journal-path.js';
import type { UncheckedEvent } from '../host/types.js';

/**
 * How a plan ended: `approved` (and the exit ran), `rejected`, `cancelled` (the question was cancelled, or the
 * process died while it was open), `unavailable` (no one could answer), `denied` (refused before anyone was asked,
 * such as a second exit in a step whose plan was approved), `failed` (approved, but the exit failed),
 * `pending` (still waiting: the session is running, or the log ends there).
 */
export type PlanOutcome =
  'approved' | 'rejected' | 'cancelled' | 'unavailable' | 'denied' | 'failed' | 'pending';

/** One plan of a session log. */
export interface PlanRecord {
  /** The session id (the log's basename). */
  session: string;
  /** The plan's place among the session's plans, from 1: `SESSION:INDEX` names it. */
  index: number;
  callId: string;
  /** When the model proposed it (the `tool/call` event's time). */
  time: string;
  /** The plan's text as decided: the user's edited text when they edited it (approved or rejected), else as proposed. */
  plan: string;
  /** Its first heading, or `Plan`. */
  title: string;
  /** The SHA-256 (hex) of `plan`. */
  sha256: string;
  outcome: PlanOutcome;
  /** True when the user edited it before answering (approving it, or rejecting it with the edit). */
  edited: boolean;
  /** The feedback of a rejection. */
  feedback?: string;
  /** The log file and the `seq` of the call, for messages. */
  file: string;
  seq: number;
  /** Set when `approval/decided` records a hash that is not the plan's: the log was altered. */
  recordedSha256?: string;
}

/** A log that could not be read, with the reason (`file:line: …` where the reader says where). */
export interface UnreadLog {
  file: string;
  message: string;
}

/** The plans of a set of logs, and the logs that could not be read. */
export interface PlanLog {
  /** The sessions folder read. */
  dir: string;
  /** How many logs were read. */
  logs: number;
  plans: PlanRecord[];
  unread: UnreadLog[];
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The SHA-256 of a plan's text, as `approval/decided` records it.
 * @param plan the text
 */
export function planHash(plan: string): string {
  return createHash('sha256').update(plan, 'utf8').digest('hex');
}

/**
 * Reads the plans of a workspace's session logs.
 * @param workspace the workspace (logs are in `<workspace>/.dsh/sessions`)
 * @param session only this session's log
 * @throws Error when `session` names no log, or the sessions folder is a link
 */
export function readPlanLog(workspace: string, session?: string): PlanLog {
  const dir = join(workspace, '.dsh', 'sessions');
  let ids: string[];
  if (session !== undefined) {
    if (!ID.test(session)) throw new Error(`\`${session}\` is not a session id`);
    checkExistingLog(join(dir, `${session}.jsonl`), workspace);
    ids = [session];
  } else {
    // A linked sessions folder is refused (throws), a missing one holds no plans.
    ids = checkFolders(join(dir, 'x.jsonl'), workspace, false)
      ? readdirSync(dir)
          .filter((name) => name.endsWith('.jsonl') && ID.test(name.slice(0, -6)))
          .map((name) => name.slice(0, -6))
          .sort()
      : [];
  }
  const plans: PlanRecord[] = [];
  const unread: UnreadLog[] = [];
  let logs = 0;
  for (const id of ids) {
    const file = join(dir, `${id}.jsonl`);
    let events: readonly UncheckedEvent[];
    try {
      checkExistingLog(file, workspace);
      events = readJournal(file).events;
    } catch (error) {
      unread.push({ file, message: (error as Error).message });
      continue;
    }
    logs++;
    plans.push(...plansOf(events, id, file));
  }
  // By the time each plan was proposed: session ids order only to the second, so two sessions of one second would
  // otherwise list in the order of their random suffixes.
  plans.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  return { dir, logs, plans, unread };
}

interface Draft {
  callId: string;
  time: string;
  seq: number;
  proposed: string;
  asked: boolean;
  decided?: { outcome: string; plan?: string; edited: boolean; sha256?: string; feedback?: string };
  result?: { isError: boolean };
}

/**
 * The plans of one session's events, in the order they were proposed.
 * @param events the log's events (payloads unchecked)
 * @param session the session id
 * @param file the log file
 */
export function plansOf(events: readonly UncheckedEvent[], session: string, file: string): PlanRecord[] {
  const drafts = new Map<string, Draft>();
  for (const event of events) {
    const data = record(event.data);
    const callId = typeof data.callId === 'string' ? data.callId : undefined;
    if (callId === undefined) continue;
    if (event.type === 'tool/call') {
      const plan = record(data.arguments).plan;
      if (data.name !== EXIT_PLAN_MODE || typeof plan !== 'string' || drafts.has(callId)) continue;
      drafts.set(callId, { callId, time: event.time, seq: event.seq, proposed: plan, asked: false });
      continue;
    }
    const draft = drafts.get(callId);
    if (!draft) continue;
    if (event.type === 'approval/asked') draft.asked = true;
    else if (event.type === 'approval/decided' && typeof data.outcome === 'string') {
      const revised = record(data.arguments).plan;
      const edited = data.edited === true && typeof revised === 'string';
      draft.decided = {
        outcome: data.outcome,
        edited,
        ...(edited ? { plan: revised } : {}),
        ...(typeof data.sha256 === 'string' ? { sha256: data.sha256 } : {}),
        ...(typeof data.feedback === 'string' ? { feedback: data.feedback } : {}),
      };
    } else if (event.type === 'tool/result' && draft.result === undefined) {
      draft.result = { isError: data.isError === true };
    }
  }
  return [...drafts.values()].map((draft, at) => {
    const plan = draft.decided?.plan ?? draft.proposed;
    const sha256 = planHash(plan);
    const recorded = draft.decided?.sha256;
    return {
      session,
      index: at + 1,
      callId: draft.callId,
      time: draft.time,
      plan,
      title: planTitle(plan),
      sha256,
      outcome: outcomeOf(draft),
      edited: draft.decided?.edited ?? false,
      ...(draft.decided?.feedback !== undefined ? { feedback: draft.decided.feedback } : {}),
      file,
      seq: draft.seq,
      ...(recorded !== undefined && recorded !== sha256 ? { recordedSha256: recorded } : {}),
    };
  });
}

function outcomeOf(draft: Draft): PlanOutcome {
  switch (draft.decided?.outcome) {
    case 'allowed-once':
      return draft.result?.isError ? 'failed' : 'approved';
    case 'rejected':
      return 'rejected';
    case 'cancelled':
      return 'cancelled';
    case 'unavailable':
      return 'unavailable';
  }
  // No decision: an answer that never came (a result means the turn ended without one), or a refusal unasked.
  if (draft.result === undefined) return 'pending';
  return draft.asked ? 'cancelled' : 'denied';
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A parsed plan reference. */
export type PlanRef = { kind: 'hash'; prefix: string } | { kind: 'index'; session: string; index: number };

/**
 * Parses `REF`: a hash prefix (at least 4 hex digits) or `SESSION:INDEX`.
 * @returns the reference, or null when it is neither
 */
export function parsePlanRef(text: string): PlanRef | null {
  const at = text.lastIndexOf(':');
  if (at !== -1) {
    const session = text.slice(0, at);
    const index = text.slice(at + 1);
    if (!ID.test(session) || !/^[1-9][0-9]{0,8}$/.test(index)) return null;
    return { kind: 'index', session, index: Number(index) };
  }
  return /^[0-9a-fA-F]{4,64}$/.test(text) ? { kind: 'hash', prefix: text.toLowerCase() } : null;
}

/**
 * The plans a reference names: for a hash prefix every plan whose hash starts with it (several calls may share
 * one text), for `SESSION:INDEX` at most one.
 */
export function findPlans(plans: readonly PlanRecord[], ref: PlanRef): PlanRecord[] {
  return ref.kind === 'hash'
    ? plans.filter((plan) => plan.sha256.startsWith(ref.prefix))
    : plans.filter((plan) => plan.session === ref.session && plan.index === ref.index);
}
