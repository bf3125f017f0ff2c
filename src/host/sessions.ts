/**
 * `ctx.sessions`: creates, resumes and forks session journals. Logs live at `<workspace>/.dsh/sessions/<id>.jsonl`
 * by default (only logs carry that extension; the lock is `<id>.lock`); the basename is the id. A path given to
 * `resume()` must name a `.jsonl` file, and the file must be a journal: anything else is refused untouched. No
 * folder of a log's path below the workspace (or below its `.dsh`) may be a symbolic link, and the log itself is
 * never followed. The rules are in [Sessions on disk](../apps.md#sessions-on-disk).
 *
 * A resumed log that ends inside an open turn (the process died mid-turn) is repaired before it is used: each call
 * of the turn's last batch without a result gets an error `tool/result` saying it was interrupted (so the
 * transcript pairs every call with a result), then the turn is closed with `turn/end {reason: 'error'}`. Fork
 * copies a prefix that ends on `turn/end`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { Service, type Context } from 'cordis';
import { containListeners, warn } from './contain.js';
import { unansweredCalls, interruptedText } from './interrupted.js';
import { acquireLock, JournalWriter, readJournal } from './journal-file.js';
import { checkExistingLog, checkFolders } from './journal-path.js';
import { JournalSession, openTurn } from './session.js';
import type { Session, SessionEvent } from './types.js';

declare module 'cordis' {
  interface Context {
    sessions: SessionsService;
  }
  interface Events {
    /** After each append, awaited by `session.append()`; listeners may append re-entrantly. Contained. */
    'session/event'(session: Session, event: SessionEvent, next: () => Promise<void>): Promise<void>;
  }
}

/** Config of `ctx.sessions`. */
export interface SessionsConfig {
  /** The workspace root; relative session paths resolve from it. */
  workspace: string;
  /** Where logs go; default `<workspace>/.dsh/sessions`. */
  dir?: string;
}

/** Options of `create()` and `fork()`. */
export interface CreateSessionOptions {
  /** The id (file basename); default a sortable time stamp plus random suffix. */
  id?: string;
  /** The folder of the log; default the service's. */
  dir?: string;
  /** Keep the session in memory only (`file: null`): for tests and throwaway agents. */
  inMemory?: boolean;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The `ctx.sessions` service. */
export class SessionsService extends Service {
  readonly workspace: string;
  readonly dir: string;

  constructor(ctx: Context, config: SessionsConfig) {
    super(ctx, 'sessions');
    containListeners(ctx);
    if (!config || typeof config.workspace !== 'string')
      throw new Error('ctx.sessions needs a `workspace` path');
    this.workspace = resolve(config.workspace);
    this.dir = resolve(this.workspace, config.dir ?? join('.dsh', 'sessions'));
  }

  /** A new, empty session (its log file is created now and locked). */
  create(options: CreateSessionOptions = {}): JournalSession {
    return this.open(options, []);
  }

  /**
   * Reopens a session from its log to continue it: `target` is an id (looked up in the sessions folder) or a path
   * to a `.jsonl` file. Takes the lock; drops a torn last line with a warning; closes a turn left open.
   */
  async resume(target: string): Promise<JournalSession> {
    const file = this.locate(target);
    checkExistingLog(file, this.workspace);
    const release = acquireLock(file, (message) => warn(this.ctx, message));
    try {
      const { writer, read } = JournalWriter.resume(file);
      if (read.tornLine !== undefined) {
        warn(this.ctx, `${file}:${read.tornLine}: dropped a torn last line (the writer died mid-write)`);
      }
      const id = basename(file).replace(/\.jsonl$/, '');
      const session = new JournalSession(this.ctx, id, file, read.events, { writer, release }, true);
      const turn = openTurn(read.events);
      if (turn !== null) await closeInterrupted(session, turn, (message) => warn(this.ctx, message));
      return session;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** The ids of the session logs in the sessions folder (only `*.jsonl` files), sorted (ids sort by time). */
  list(): string[] {
    // The folders any log of this folder lies in: a linked sessions folder is refused, not listed.
    if (!checkFolders(join(this.dir, 'x.jsonl'), this.workspace, false)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.jsonl') && ID.test(name.slice(0, -6)))
      .map((name) => name.slice(0, -6))
      .sort();
  }

  /** The events of a session log, read without taking the lock (for viewers and `fork`). */
  read(target: string): SessionEvent[] {
    const file = this.locate(target);
    checkExistingLog(file, this.workspace);
    return readJournal(file).events;
  }

  /**
   * A new session seeded with `source`'s events up to and including `endSeq`, which must be a `turn/end`
   * (a fork inside an open turn is refused). Default `endSeq`: the source's last event.
   */
  fork(source: Session | string, endSeq?: number, options: CreateSessionOptions = {}): JournalSession {
    const events = typeof source === 'string' ? this.read(source) : source.events;
    const end = endSeq ?? events.length;
    const at = events[end - 1];
    if (!Number.isInteger(end) || end < 1 || !at) {
      throw new Error(`cannot fork at seq ${end}: the source has ${events.length} events`);
    }
    if (at.type !== 'turn/end') {
      throw new Error(`cannot fork at seq ${end} (${at.type}): a fork must end on a turn/end`);
    }
    return this.open(
      options,
      events.slice(0, end).map((event) => ({ ...event })),
    );
  }

  private open(options: CreateSessionOptions, seed: SessionEvent[]): JournalSession {
    const id = options.id ?? newId();
    if (!ID.test(id)) throw new Error(`invalid session id \`${id}\`: use letters, digits, '.', '_' and '-'`);
    if (options.inMemory) return new JournalSession(this.ctx, id, null, seed, null, seed.length > 0);
    const dir = resolve(this.workspace, options.dir ?? this.dir);
    const file = join(dir, `${id}.jsonl`);
    checkFolders(file, this.workspace, true);
    const release = acquireLock(file, (message) => warn(this.ctx, message));
    try {
      const writer = JournalWriter.create(file);
      if (seed.length > 0) {
        writer.write(seed.map((event) => JSON.stringify(event) + '\n').join(''));
        writer.sync();
      }
      return new JournalSession(this.ctx, id, file, seed, { writer, release }, seed.length > 0);
    } catch (error) {
      release();
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new Error(`session ${file} already exists`);
      throw error;
    }
  }

  private locate(target: string): string {
    if (target.endsWith('.jsonl') || target.includes('/') || isAbsolute(target)) {
      if (!target.endsWith('.jsonl'))
        throw new Error(`refusing ${target}: not a session log (a session log's name ends in .jsonl)`);
      return resolve(this.workspace, target);
    }
    if (!ID.test(target)) throw new Error(`invalid session id \`${target}\``);
    return join(this.dir, `${target}.jsonl`);
  }
}

/**
 * Repairs a turn a dead process left open: an interrupted result for each call of its last batch that has none,
 * then `turn/end {reason: 'error'}`.
 */
async function closeInterrupted(
  session: JournalSession,
  turn: number,
  warn: (message: string) => void,
): Promise<void> {
  const events = session.events;
  let start = events.length - 1;
  while (start > 0 && events[start]!.type !== 'turn/start') start--;
  const unanswered = unansweredCalls(events, start);
  const names = unanswered.map(({ call }) => `\`${call.name}\``).join(', ');
  warn(
    `${session.file}: turn ${turn} was left open; closing it as interrupted` +
      (unanswered.length ? ` (${names} get an interrupted result)` : ''),
  );
  for (const { call, called, at } of unanswered) {
    const { callId, name } = call;
    if (!called) await session.append('tool/call', { callId, name, arguments: call.arguments });
    await session.append('tool/result', { callId, name, content: interruptedText(name, at), isError: true });
  }
  await session.append('turn/end', {
    turn,
    reason: 'error',
    error: 'interrupted: the process ended mid-turn',
  });
}

/**
 * A sortable, collision-resistant id: `20261130-064501-1a2b3c`. The six random hex digits are the first of a v4
 * UUID (all random).
 */
export function newId(now = new Date()): string {
  return `${stamp(now)}-${randomUUID().slice(0, 6)}`;
}

/** `20261130-064501` for a time (UTC). */
function stamp(at: Date): string {
  const two = (n: number) => (n < 10 ? '0' : '') + n;
  return (
    `${String(at.getUTCFullYear()).padStart(4, '0')}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}-` +
    `${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`
  );
}
