/**
 * The durable pending user flip: a small JSON file beside a session's journal (`<id>.mode-intent.json` next to
 * `<id>.jsonl`) that holds `{mode, seq}`, the mode the user asked for and how many events the log had then. It is
 * written (atomically, fsynced) before `ctx.modes.set()` returns and removed once the intent settles, so a flip
 * made while the agent is idle survives a restart of the process: the next agent on that journal re-parks it.
 *
 * The file is never the truth for the gate: it only re-creates a pending intent, which lands as `mode/set` at the
 * next boundary exactly like one set in this process. It is stale, and ignored, once the log shows a `turn/start`
 * or a `mode/set` after `seq` (the intent had its boundary: it landed, was discarded or was replaced).
 *
 * Hostile input: the file is opened without following a symbolic link, must be a regular file of at most
 * {@link MAX_INTENT_BYTES}, and must hold exactly `{mode: string, seq: integer}`; anything else reads as
 * `malformed`, which the engine turns into a fail-closed mode. Writes go to a fresh temporary file (`wx`: never
 * through an existing name or link) renamed over the target, so a reader never sees half a file.
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';

/** What the file records. */
export interface StoredIntent {
  /** The mode the user asked for. */
  mode: string;
  /** The number of events in the log when it was asked for. */
  seq: number;
}

/** The largest intent file read (a real one is under 100 bytes). */
export const MAX_INTENT_BYTES = 4096;

/**
 * The intent file of a journal.
 * @param journal the journal's path
 * @returns the path beside it
 */
export function intentPath(journal: string): string {
  return `${journal.replace(/\.jsonl$/, '')}.mode-intent.json`;
}

/**
 * Records the intent durably (temporary file, fsync, rename).
 * @param journal the journal's path
 * @param intent what to record
 * @throws when the file cannot be written (nothing is left behind but, at worst, the previous file)
 */
export function writeIntent(journal: string, intent: StoredIntent): void {
  const target = intentPath(journal);
  const temp = `${target}.${process.pid}.tmp`;
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A leftover of a crashed writer with our pid (or anything planted there): remove the name, then retry.
    unlinkSync(temp);
    fd = openSync(temp, 'wx', 0o600);
  }
  try {
    try {
      writeSync(fd, JSON.stringify({ mode: intent.mode, seq: intent.seq }) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // the temporary file is already gone: nothing to clean up
    }
    throw error;
  }
}

/**
 * Removes the intent file, if there is one.
 * @param journal the journal's path
 * @throws when it exists and cannot be removed
 */
export function removeIntent(journal: string): void {
  try {
    unlinkSync(intentPath(journal));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Reads the intent file.
 * @param journal the journal's path
 * @returns the intent; null when there is no file; `malformed` when it is not one of ours (a link, a special
 *   file, too large, or not `{mode, seq}`)
 */
export function readIntent(journal: string): StoredIntent | null | 'malformed' {
  let fd: number;
  try {
    fd = openSync(intentPath(journal), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'malformed';
  }
  let text: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_INTENT_BYTES) return 'malformed';
    const buffer = Buffer.alloc(MAX_INTENT_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    if (length > MAX_INTENT_BYTES) return 'malformed';
    text = buffer.toString('utf8', 0, length);
  } catch {
    return 'malformed';
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'malformed';
  }
  const record = value as { mode?: unknown; seq?: unknown } | null;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'malformed';
  if (Object.keys(record).length !== 2) return 'malformed';
  const { mode, seq } = record;
  if (typeof mode !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
    return 'malformed';
  return { mode, seq };
}
