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
  /** Claude Code's `permission_mode` with the call. */
  permissionMode?: string;
}

/** A journal read: its events in order (numbered from 1 as they are read). */
export interface AgentJournal {
  file: string;
  events: UncheckedEvent[];
}

/**
 * Reads a session's journal.
 * @param file the journal
 * @returns its events; none when it does not exist
 * @throws Error for a link, a special file, or a damaged line before the last
 */
export function readAgentJournal(file: string): AgentJournal {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file, events: [] };
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new Error(`refusing the journal ${file}: it is a symbolic link`);
    throw error;
  }
  let bytes: Buffer;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`refusing the journal ${file}: it is not a regular file`);
    if (stats.size > MAX_JOURNAL_BYTES)
      throw new Error(`refusing the journal ${file}: it is larger than ${MAX_JOURNAL_BYTES} bytes`);
    bytes = Buffer.alloc(stats.size);
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
  checkFolders(file, workspace, true);
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

/** What a hook needs of a journal: whether it has events, and its last events back to the last `mode/set`. */
export interface JournalTail {
  /** The file has no event yet (missing or empty). */
  empty: boolean;
  /** The last events, in order, from the last `mode/set` (or the file's start) on; enough for `foldMode`. */
  events: UncheckedEvent[];
}

/**
 * Reads a journal from its end back to its last `mode/set` and its last `hook/decision`: a hook's cost then does
 * not grow with the session. The events returned fold (`foldMode`) to the mode the whole file folds to, since the
 * last `mode/set` is among them.
 * @throws Error for a link, a special file, or a damaged line among those read
 */
export function readJournalTail(file: string): JournalTail {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { empty: true, events: [] };
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new Error(`refusing the journal ${file}: it is a symbolic link`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`refusing the journal ${file}: it is not a regular file`);
    const events: UncheckedEvent[] = [];
    let end = stats.size;
    let carry = Buffer.alloc(0);
    let first = true;
    let sawDecision = false;
    let sawModeSet = false;
    const BLOCK = 64 * 1024;
    while (end > 0) {
      const start = Math.max(0, end - BLOCK);
      const block = Buffer.alloc(end - start);
      readSync(fd, block, 0, block.length, start);
      let bytes = Buffer.concat([block, carry]);
      // A line cut by the block boundary waits for the next block; the file's first line is whole at start 0.
      const cut = start === 0 ? -1 : bytes.indexOf(0x0a);
      carry = cut === -1 ? Buffer.alloc(0) : bytes.subarray(0, cut + 1);
      bytes = cut === -1 ? bytes : bytes.subarray(cut + 1);
      const lines = bytes.toString('utf8').split('\n');
      // The text after the file's last newline is a line still being written: never read.
      if (first) lines.pop();
      else if (lines.at(-1) === '') lines.pop();
      first = false;
      for (let i = lines.length - 1; i >= 0; i--) {
        const event = parseLine(lines[i]!, file);
        events.unshift(event);
        if (event.type === 'hook/decision') sawDecision = true;
        if (event.type === 'mode/set') sawModeSet = true;
        if (sawModeSet && sawDecision) return { empty: false, events };
      }
      end = start;
    }
    return { empty: stats.size === 0, events };
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
