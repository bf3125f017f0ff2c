/**
 * The session journal on disk: one JSON event per line (`<dir>/<id>.jsonl`), written synchronously so that an
 * acknowledged append is in the OS before `append()` resolves (it survives `kill -9` of the process), and
 * fsynced at each `turn/end` (it survives a power cut too). A `<id>.lock` file beside the log, holding the
 * writer's pid, keeps a second writer out; a lock whose process is gone is stale and taken over.
 *
 * Reading: a torn last line (the writer died mid-line) is dropped with a warning and everything before it is
 * kept; any other malformed line, or a line whose `seq` breaks the sequence, is an error naming `file:line`.
 * @module
 */
import {
  closeSync,
  fsyncSync,
  truncateSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import type { SessionEvent } from './types.js';

/** The outcome of reading a journal file. */
export interface JournalRead {
  events: SessionEvent[];
  /** Byte length of the valid prefix (the file is truncated to it before a writer appends). */
  validBytes: number;
  /** True when the valid prefix does not end with a newline (a complete last line written without one). */
  needsNewline: boolean;
  /** Set when a torn last line was dropped. */
  tornLine?: number;
}

/** Parses a journal's text. Throws `file:line: …` for a malformed line that is not the torn tail. */
export function parseJournal(text: string, file: string): JournalRead {
  const events: SessionEvent[] = [];
  let offset = 0;
  let line = 0;
  while (offset < text.length) {
    line += 1;
    const end = text.indexOf('\n', offset);
    const last = end === -1;
    const raw = text.slice(offset, last ? text.length : end);
    const next = last ? text.length : end + 1;
    if (raw.trim() === '') {
      if (!last) throw new Error(`${file}:${line}: empty line in the session journal`);
      offset = next;
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      if (last)
        return {
          events,
          validBytes: Buffer.byteLength(text.slice(0, offset)),
          needsNewline: false,
          tornLine: line,
        };
      throw new Error(`${file}:${line}: malformed journal line: ${(error as Error).message}`);
    }
    events.push(checkEvent(value, events.length + 1, file, line));
    offset = next;
  }
  const needsNewline = text.length > 0 && !text.endsWith('\n');
  return { events, validBytes: Buffer.byteLength(text), needsNewline };
}

function checkEvent(value: unknown, seq: number, file: string, line: number): SessionEvent {
  const where = `${file}:${line}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${where}: a journal line must be a JSON object`);
  }
  const event = value as Record<string, unknown>;
  if (event.seq !== seq) throw new Error(`${where}: expected seq ${seq}, found ${JSON.stringify(event.seq)}`);
  if (typeof event.type !== 'string' || event.type === '') throw new Error(`${where}: missing event type`);
  if (typeof event.time !== 'string') throw new Error(`${where}: missing event time`);
  if (typeof event.data !== 'object' || event.data === null) throw new Error(`${where}: missing event data`);
  return event as unknown as SessionEvent;
}

/** Reads and parses a journal file (no lock: reading never conflicts with a writer's complete lines). */
export function readJournal(file: string): JournalRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no session journal at ${file}`);
    throw error;
  }
  return parseJournal(text, file);
}

/** Whether a process with this pid is alive (EPERM means alive but not ours). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const held = new Set<string>();
process.once('exit', () => {
  for (const lock of held) {
    try {
      unlinkSync(lock);
    } catch {
      // already gone: nothing to release
    }
  }
});

/**
 * Takes `<file minus .jsonl>.lock`. Throws a clear error naming the holder when another live process (or another
 * writer in this process) holds it. Returns the release function.
 */
export function acquireLock(file: string, onStale: (message: string) => void): () => void {
  const lock = file.replace(/\.jsonl$/, '') + '.lock';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      held.add(lock);
      return () => {
        if (!held.delete(lock)) return;
        try {
          unlinkSync(lock);
        } catch {
          // removed by hand: the lock is released either way
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number.parseInt(readFileSafe(lock), 10);
    if (Number.isInteger(pid) && pid > 0 && (alive(pid) || held.has(lock))) {
      const who = pid === process.pid ? 'this process' : `process ${pid}`;
      throw new Error(`session ${file} is in use by ${who} (lock ${lock}); close it there first`);
    }
    onStale(`taking over the stale lock ${lock} (its process ${Number.isNaN(pid) ? '?' : pid} is gone)`);
    try {
      unlinkSync(lock);
    } catch {
      // another process took it over first: the next attempt reports it
    }
  }
  throw new Error(`could not take the lock for session ${file}`);
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** An open journal file for appending. */
export class JournalWriter {
  private readonly fd: number;

  /**
   * Opens `file` for appending: `validBytes` null creates it (refusing an existing file); otherwise the file is
   * first truncated to `validBytes` (dropping a torn tail) and completed with a newline when `needsNewline`.
   */
  constructor(file: string, validBytes: number | null, needsNewline: boolean) {
    if (validBytes !== null) truncateSync(file, validBytes);
    this.fd = openSync(file, validBytes === null ? 'wx' : 'a');
    if (needsNewline) this.write('\n');
  }

  /** Writes text synchronously at the end of the file (O_APPEND). */
  write(text: string): void {
    const bytes = Buffer.from(text);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }

  /** Forces the written lines to stable storage. */
  sync(): void {
    fsyncSync(this.fd);
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.fd);
  }
}
