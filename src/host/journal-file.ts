/**
 * The session journal on disk: one JSON event per line (`<dir>/<id>.jsonl`), written synchronously so that an
 * acknowledged append is in the OS before `append()` resolves (it survives `kill -9` of the process), and
 * fsynced at each `turn/end` (it survives a power cut too). A `<id>.lock` file beside the log, holding the
 * writer's pid, keeps a second writer out; a lock whose process is gone is stale and taken over.
 *
 * Recognition: a journal is an empty file (a session created and never prompted) or one whose first line is the
 * event `{"seq":1,"type":"turn/start",…}` (every session opens with its first turn). Anything else is not ours
 * and is refused before a byte of it changes.
 *
 * Reading works on bytes: each line is decoded as strict UTF-8 and parsed as JSON. A damaged last line without
 * its newline (the writer died mid-line: bad JSON or a cut multi-byte character) is the torn tail: it is dropped
 * with a warning and everything before it kept. Any other damaged line (bad JSON, invalid UTF-8, an empty line,
 * a `seq` that breaks the sequence) is an error naming `file:line`. The file is only ever cut to a length no
 * greater than its size (the valid prefix), never extended.
 *
 * Links: the log and its lock are opened with no-follow semantics (a symbolic link is refused, never written
 * through), and only a regular file is read.
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
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

/** How every journal starts: the first event's first keys, as `JSON.stringify` of a `SessionEvent` writes them. */
const FIRST_LINE_PREFIX = '{"seq":1,"type":"turn/start",';
const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses a journal's bytes (a string is taken as its UTF-8 encoding). Throws `file:line: …` for a malformed line
 * that is not the torn tail, and for a file that is not a journal.
 */
export function parseJournal(input: string | Uint8Array, file: string): JournalRead {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  return parseSound(bytes) ?? parseLineByLine(bytes, file);
}

/**
 * The one-pass reading of a sound journal: the whole file decoded at once, each line parsed and checked. Null at
 * the first anomaly of any kind (invalid UTF-8, an empty or malformed line, a bad envelope, a torn tail), and the
 * careful line-by-line reading then yields the same events, or the precise error. A newline byte never falls
 * inside a UTF-8 sequence, so the lines of the decoded text are the decoded lines.
 */
function parseSound(bytes: Uint8Array): JournalRead | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  const events: SessionEvent[] = [];
  let offset = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    if (end === -1) return null;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(offset, end));
    } catch {
      return null;
    }
    if (!soundEvent(value, events.length + 1)) return null;
    events.push(value);
    offset = end + 1;
  }
  return { events, validBytes: bytes.length, needsNewline: false };
}

/** What `checkEvent` accepts, as a predicate. */
function soundEvent(value: unknown, seq: number): value is SessionEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const event = value as Record<string, unknown>;
  return (
    event.seq === seq &&
    typeof event.type === 'string' &&
    event.type !== '' &&
    typeof event.time === 'string' &&
    typeof event.data === 'object' &&
    event.data !== null &&
    (seq !== 1 || event.type === 'turn/start')
  );
}

function parseLineByLine(bytes: Uint8Array, file: string): JournalRead {
  const events: SessionEvent[] = [];
  let offset = 0;
  let line = 0;
  while (offset < bytes.length) {
    line += 1;
    const end = bytes.indexOf(NEWLINE, offset);
    const last = end === -1;
    const stop = last ? bytes.length : end;
    const torn = (): JournalRead => {
      // A torn first line must still be the start of our first line: a one-line file of someone else's is not.
      if (line === 1 && !FIRST_LINE_PREFIX.startsWith(latin1Prefix(bytes, FIRST_LINE_PREFIX.length)))
        throw notAJournal(file, 'its only line is not a session event');
      return { events, validBytes: offset, needsNewline: false, tornLine: line };
    };
    let raw: string;
    try {
      raw = utf8.decode(bytes.subarray(offset, stop));
    } catch {
      if (last) return torn();
      if (line === 1) throw notAJournal(file, 'its first line is not UTF-8 text');
      throw new Error(`${file}:${line}: invalid UTF-8 in the session journal (the line is damaged)`);
    }
    if (raw.trim() === '') {
      if (last) return torn();
      throw new Error(`${file}:${line}: empty line in the session journal`);
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      if (last) return torn();
      if (line === 1) throw notAJournal(file, 'its first line is not JSON');
      throw new Error(`${file}:${line}: malformed journal line: ${(error as Error).message}`);
    }
    events.push(checkEvent(value, events.length + 1, file, line));
    offset = last ? bytes.length : end + 1;
  }
  const needsNewline = bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE;
  return { events, validBytes: bytes.length, needsNewline };
}

function latin1Prefix(bytes: Uint8Array, length: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(length, bytes.length)).toString('latin1');
}

function notAJournal(file: string, why: string): Error {
  return new Error(
    `${file}:1: not a dsh-mode session journal (${why}; a journal starts with a turn/start event of seq 1); the file was left untouched`,
  );
}

function checkEvent(value: unknown, seq: number, file: string, line: number): SessionEvent {
  const where = `${file}:${line}`;
  const fail = (why: string): Error => (line === 1 ? notAJournal(file, why) : new Error(`${where}: ${why}`));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fail('a journal line must be a JSON object');
  }
  const event = value as Record<string, unknown>;
  if (event.seq !== seq) throw fail(`expected seq ${seq}, found ${JSON.stringify(event.seq)}`);
  if (typeof event.type !== 'string' || event.type === '') throw fail('missing event type');
  if (typeof event.time !== 'string') throw fail('missing event time');
  if (typeof event.data !== 'object' || event.data === null) throw fail('missing event data');
  if (seq === 1 && event.type !== 'turn/start') throw fail(`the first event is \`${event.type}\``);
  return event as unknown as SessionEvent;
}

// Absent on platforms without them (Windows): the lstat checks of the callers still refuse links there.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens an existing file without following a final symbolic link (and without blocking on a FIFO), and refuses
 * anything but a regular file. Throws a clear error for a link, a special file or a missing file.
 */
function openRegular(file: string, flags: number, what: string): number {
  let fd: number;
  try {
    fd = openSync(file, flags | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`no ${what} at ${file}`);
    if (code === 'ELOOP' || code === 'EMLINK') throw linkRefused(file, what);
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`refusing ${what} ${file}: it is not a regular file`);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** The error for a symbolic link where a journal file or folder should be. */
export function linkRefused(path: string, what: string): Error {
  return new Error(
    `refusing ${what} ${path}: it is a symbolic link (session logs are never read or written through a link; replace it with a real file or folder)`,
  );
}

/** Reads a whole open file from its start. */
function readAll(fd: number): Buffer {
  // One byte more than the file holds, so the read that finds the end needs no bigger buffer (and no copy).
  let buffer = Buffer.allocUnsafe(Math.max(fstatSync(fd).size + 1, 1 << 16));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, length);
    if (n === 0) return buffer.subarray(0, length);
    length += n;
  }
}

/** Reads and parses a journal file (no lock: reading never conflicts with a writer's complete lines). */
export function readJournal(file: string): JournalRead {
  const fd = openRegular(file, constants.O_RDONLY, 'session journal');
  try {
    return parseJournal(readAll(fd), file);
  } finally {
    closeSync(fd);
  }
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
      // `wx` is O_CREAT | O_EXCL: it never follows a link, a link in the lock's place reads as EEXIST.
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
    const pid = Number.parseInt(readLockPid(lock), 10);
    if (Number.isInteger(pid) && pid > 0 && (alive(pid) || held.has(lock))) {
      const who = pid === process.pid ? 'this process' : `process ${pid}`;
      throw new Error(`session ${file} is in use by ${who} (lock ${lock}); close it there first`);
    }
    onStale(`taking over the stale lock ${lock} (its process ${Number.isNaN(pid) ? '?' : pid} is gone)`);
    try {
      // unlink removes a link itself, never what it points to.
      unlinkSync(lock);
    } catch {
      // another process took it over first: the next attempt reports it
    }
  }
  throw new Error(`could not take the lock for session ${file}`);
}

/** The first bytes of a lock file, without following a link or reading a special file ('' when unreadable). */
function readLockPid(lock: string): string {
  let fd: number;
  try {
    fd = openRegular(lock, constants.O_RDONLY, 'lock');
  } catch {
    return '';
  }
  try {
    const buffer = Buffer.alloc(32);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

/** An open journal file for appending. */
export class JournalWriter {
  private constructor(private readonly fd: number) {}

  /** Creates `file` for appending, refusing an existing file or link. */
  static create(file: string): JournalWriter {
    const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;
    return new JournalWriter(openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW, 0o666));
  }

  /**
   * Opens an existing journal to continue it: reads and parses it through the same descriptor (so the file that
   * was checked is the file that is written), cuts a torn tail off, and completes a last line written without
   * its newline. A file that does not parse is closed untouched and the error thrown.
   */
  static resume(file: string): { writer: JournalWriter; read: JournalRead } {
    const fd = openRegular(file, constants.O_RDWR | constants.O_APPEND, 'session journal');
    try {
      const bytes = readAll(fd);
      const read = parseJournal(bytes, file);
      if (read.validBytes < bytes.length) cutTo(fd, read.validBytes, file);
      const writer = new JournalWriter(fd);
      if (read.needsNewline) writer.write('\n');
      return { writer, read };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Writes text synchronously at the end of the file (O_APPEND). */
  write(text: string): void {
    // The string goes to the kernel without a copy into a Buffer of ours; only a short write (rare on a regular
    // file) encodes it, to send the rest.
    const written = writeSync(this.fd, text);
    if (written === Buffer.byteLength(text)) return;
    const bytes = Buffer.from(text);
    let done = written;
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

/** Truncates to `length`, which must not exceed the file's size: truncation never extends a journal. */
function cutTo(fd: number, length: number, file: string): void {
  const size = fstatSync(fd).size;
  if (!Number.isInteger(length) || length < 0 || length > size) {
    throw new Error(`internal error: refusing to cut ${file} to ${length} bytes (it has ${size})`);
  }
  ftruncateSync(fd, length);
}
