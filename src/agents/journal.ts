/**
 * The journal of one agent session: `<workspace>/.dsh/agents/<agent>/<session id>.jsonl`, one JSON event per line,
 * `{type, time, data}`. It holds the same `mode/set {mode}` events as the reference host's session log, folded the
 * same way (`foldMode`: the last one wins), and a `hook/decision` for every call the hook decided, with the rule,
 * the pattern and the command or path that decided.
 *
 * What set a mode is the event written with it, in the same write: `session/start {mode, from}` when the hook
 * first sees a session (the starting mode `install --mode` configured), `mode/flip {mode, by}` for a change
 * (`dsh-mode mode`, or Claude Code's own plan approval). Each append is one `write` of whole lines to a file opened
 * with `O_APPEND`, so hooks of one session running side by side never interleave their lines; a reader drops a last
 * line without its newline (a write in progress, or a writer that died) and refuses a damaged line before it.
 *
 * A hook does not read the whole journal: each `hook/decision` records the mode of record it was decided under
 * (`of`) and how much of the journal it had read (`seen`), so the next hook reads back only to the last decision
 * and the lines written beside it (`readJournalTail`), and gets what `foldMode` of the whole file gives. `log`
 * reads it all.
 *
 * Links: the folders from the workspace down to the journal must be real folders (`host/journal-path.ts`, as for
 * the host's logs) and the journal is opened without following a link, so a cloned repository cannot point
 * `.dsh/` at a file elsewhere.
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { foldMode } from '../engine/fold.js';
import { checkFolders } from '../host/journal-path.js';
import type { UncheckedEvent } from '../host/types.js';
import type { AgentName } from './tables.js';

/** The largest journal read (a session of many thousand decisions stays far below it). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The folder of an agent's journals in a workspace. */
export function journalFolder(workspace: string, agent: AgentName): string {
  return join(workspace, '.dsh', 'agents', agent);
}

/** The journal of one session. */
export function journalPath(workspace: string, agent: AgentName, session: string): string {
  return join(journalFolder(workspace, agent), `${session}.jsonl`);
}

/** One decision, as the journal keeps it. */
export interface DecisionRecord {
  /** The agent's tool, as the model called it. */
  agentTool: string;
  /** dsh-mode's tool it was decided as. */
  tool: string;
  /** The command or path the call is about. */
  subject?: string;
  decision: 'allow' | 'ask' | 'deny';
  /** The mode that decided, and which source gave it. */
  mode: string;
  source: string;
  /** The deciding rule, with its place. */
  rule: { selector: string; file: string | null; line: number | null; column: number | null };
  /** The argument pattern that decided, when one did. */
  pattern?: { selector: string; file: string | null; line: number | null; column: number | null };
  /** The sub-command or path that decided (for a script: the simple command). */
  decidedBy?: string;
  /** What the agent was told. */
  reason: string;
  /** What the agent did with it (an ask that the agent cannot ask becomes deny). */
  answer: 'allow' | 'ask' | 'deny';
  /** Claude Code's `permission_mode` (OpenCode's agent) with the call. */
  permissionMode?: string;
  /** The journal's mode of record when this was written, and the journal's size the hook had read. */
  of?: string;
  seen?: number;
}

/** A journal read: its events in order (numbered from 1 as they are read). */
export interface AgentJournal {
  file: string;
  events: UncheckedEvent[];
}

/**
 * Opens a journal for reading, never through a link, and only when it is a regular file.
 * @returns its descriptor and size, or undefined when it does not exist
 * @throws Error for a link or a special file
 */
function openJournal(file: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new Error(`refusing the journal ${file}: it is a symbolic link`);
    throw error;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new Error(`refusing the journal ${file}: it is not a regular file`);
  }
  return { fd, size: stats.size };
}

/**
 * Reads a session's journal.
 * @param file the journal
 * @returns its events; none when it does not exist
 * @throws Error for a link, a special file, or a damaged line before the last
 */
export function readAgentJournal(file: string): AgentJournal {
  const opened = openJournal(file);
  if (opened === undefined) return { file, events: [] };
  const { fd, size } = opened;
  let bytes: Buffer;
  try {
    if (size > MAX_JOURNAL_BYTES)
      throw new Error(`refusing the journal ${file}: it is larger than ${MAX_JOURNAL_BYTES} bytes`);
    bytes = Buffer.alloc(size);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) break;
      at += n;
    }
    bytes = bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
  return { file, events: parseAgentJournal(bytes.toString('utf8'), file) };
}

/**
 * Parses a journal's text.
 * @throws Error naming `file:line` for a damaged line that is not the last
 */
export function parseAgentJournal(text: string, file: string): UncheckedEvent[] {
  const lines = text.split('\n');
  // The text after the last newline is a line still being written (or torn): never read.
  lines.pop();
  return lines.map((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: the journal line is damaged (not JSON)`);
    }
    const event = value as { type?: unknown; time?: unknown; data?: unknown } | null;
    if (
      typeof event !== 'object' ||
      event === null ||
      typeof event.type !== 'string' ||
      typeof event.time !== 'string'
    )
      throw new Error(`${file}:${i + 1}: the journal line is not an event`);
    return { seq: i + 1, type: event.type, time: event.time, data: event.data };
  });
}

/**
 * The mode a journal's events give: the last `mode/set`, or `undefined` when there is none yet.
 * @param events the events
 */
export function journalMode(events: readonly UncheckedEvent[]): string | undefined {
  return events.some((e) => e.type === 'mode/set') ? foldMode(events) : undefined;
}

/**
 * Appends events to a session's journal in one write, creating it (and its folders) when it does not exist.
 * @param workspace the session's workspace (the folders below it must be real folders)
 * @param file the journal
 * @param events the events, in order
 */
export function appendAgentJournal(
  workspace: string,
  file: string,
  events: ReadonlyArray<{ type: string; data: unknown }>,
): void {
  // Folders are made only when one is missing: a session's journal is appended to far more often than created.
  if (!checkFolders(file, workspace, false)) checkFolders(file, workspace, true);
  const time = new Date().toISOString();
  const text = events.map((e) => `${JSON.stringify({ type: e.type, time, data: e.data })}\n`).join('');
  const { O_WRONLY, O_CREAT, O_APPEND } = constants;
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new Error(`refusing the journal ${file}: it is a symbolic link`);
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`refusing the journal ${file}: it is not a regular file`);
    const bytes = Buffer.from(text);
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
}

/**
 * The sessions of an agent in a workspace, the most recently written last.
 * @returns session ids with their journal's modification time
 */
export function listSessions(
  workspace: string,
  agent: AgentName,
): Array<{ session: string; file: string; mtimeMs: number }> {
  const folder = journalFolder(workspace, agent);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => {
      const file = join(folder, n);
      return { session: n.slice(0, -'.jsonl'.length), file, mtimeMs: statSync(file).mtimeMs };
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.session.localeCompare(b.session));
}

/** What a hook needs of a journal: whether it has events, its mode of record, and the last decision. */
export interface JournalTail {
  /** The file has no event yet (missing or empty). */
  empty: boolean;
  /** The journal's mode (`foldMode` of the whole file), or undefined when it has no `mode/set`. */
  mode: string | undefined;
  /** The last `hook/decision`'s data, when there is one. */
  lastDecision: Record<string, unknown> | undefined;
  /** The file's size when it was read: a decision records it as `seen`. */
  size: number;
}

/**
 * Reads a journal from its end, only as far back as it must: to its last `hook/decision`, and to its last
 * `mode/set` or to a decision that recorded the mode of record it was decided under (`of`) together with the size
 * of the journal it had read (`seen`). Lines between `seen` and that decision were written while it was being
 * decided (a `dsh-mode mode` running beside the hook), so they are read too: the mode is the last `mode/set`
 * found, or else that decision's `of`, exactly what `foldMode` of the whole file gives. A hook's cost then does not
 * grow with the session.
 * @throws Error for a link, a special file, or a damaged line among those read
 */
export function readJournalTail(file: string): JournalTail {
  const opened = openJournal(file);
  if (opened === undefined) return { empty: true, mode: undefined, lastDecision: undefined, size: 0 };
  const { fd, size } = opened;
  try {
    // `data` holds the bytes [pos, size) of the file; lines are cut from its end.
    let pos = size;
    let data = Buffer.alloc(0);
    // A few lines are usually enough: the first read is small, and each further one twice as large.
    let block = 4096;
    const more = (): boolean => {
      if (pos === 0) return false;
      const start = Math.max(0, pos - block);
      block = Math.min(block * 2, 1024 * 1024);
      const bytes = Buffer.alloc(pos - start);
      readSync(fd, bytes, 0, bytes.length, start);
      data = Buffer.concat([bytes, data]);
      pos = start;
      return true;
    };
    // The text after the file's last newline is a line still being written: never read.
    let lineEnd: number;
    for (;;) {
      const at = data.lastIndexOf(0x0a);
      if (at !== -1) {
        lineEnd = pos + at;
        break;
      }
      if (!more()) return { empty: size === 0, mode: undefined, lastDecision: undefined, size };
    }
    let mode: string | undefined;
    let lastDecision: Record<string, unknown> | undefined;
    let candidate: { of: string; seen: number } | undefined;
    for (;;) {
      let at = data.lastIndexOf(0x0a, lineEnd - pos - 1);
      while (at === -1 && pos > 0) {
        more();
        at = data.lastIndexOf(0x0a, lineEnd - pos - 1);
      }
      const lineStart = at === -1 ? pos : pos + at + 1;
      if (candidate !== undefined && lineStart + 1 <= candidate.seen) mode ??= candidate.of;
      if (mode !== undefined && lastDecision !== undefined) break;
      const event = parseLine(data.subarray(lineStart - pos, lineEnd - pos).toString('utf8'), file);
      if (event.type === 'mode/set') mode ??= foldMode([event]);
      if (event.type === 'hook/decision') {
        const d = (event.data ?? {}) as Record<string, unknown>;
        lastDecision ??= d;
        if (candidate === undefined && typeof d.of === 'string' && typeof d.seen === 'number')
          candidate = { of: d.of, seen: d.seen };
      }
      if (mode !== undefined && lastDecision !== undefined) break;
      if (lineStart === 0) break;
      lineEnd = lineStart - 1;
    }
    return { empty: false, mode, lastDecision, size };
  } finally {
    closeSync(fd);
  }
}

function parseLine(line: string, file: string): UncheckedEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`${file}: a journal line near the end is damaged (not JSON)`);
  }
  const event = value as { type?: unknown; time?: unknown; data?: unknown } | null;
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.type !== 'string' ||
    typeof event.time !== 'string'
  )
    throw new Error(`${file}: a journal line near the end is not an event`);
  return { seq: 0, type: event.type, time: event.time, data: event.data };
}
