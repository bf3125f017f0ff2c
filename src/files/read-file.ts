/**
 * Reading a file a user named (a policy, a deployment, a model script, a tool catalog) without trusting what the
 * name points at. The file is opened first, without blocking (`O_NONBLOCK`, so a FIFO with no writer cannot hang
 * the open), and then checked on the open descriptor: anything that is not a regular file (a FIFO, `/dev/zero`, a
 * socket, a folder) is refused, and so is a file over the caller's size limit. The limit is enforced while
 * reading too, so a file that grows (or reports size 0, as `/proc` files do) still cannot exhaust memory.
 *
 * It lives in src/compile, the lowest layer, so that the compiler, the host and the CLI can all import it.
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Why a file was refused before its bytes were used. */
export class FileRefusedError extends Error {
  /**
   * @param reason `not-regular` (a FIFO, device, socket or folder) or `too-large`
   * @param message one lowercase phrase that follows the file's name: "is a FIFO, not a regular file"
   */
  constructor(
    readonly reason: 'not-regular' | 'too-large',
    message: string,
  ) {
    super(message);
    this.name = 'FileRefusedError';
  }
}

/** Open flags for a read that must not block on a FIFO nor make a terminal the controlling one. */
export const READ_FLAGS: number =
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

const CHUNK = 64 * 1024;

/** What kind of file `stats` describes, as a noun phrase ("a FIFO"). */
export function describeFileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Refuses what is not a regular file, or is larger than `maxBytes`.
 * @throws FileRefusedError
 */
export function assertRegular(stats: Stats, maxBytes = Infinity): void {
  if (!stats.isFile())
    throw new FileRefusedError('not-regular', `is ${describeFileKind(stats)}, not a regular file`);
  if (stats.size > maxBytes) throw tooLarge(stats.size, maxBytes);
}

function tooLarge(size: number | null, maxBytes: number): FileRefusedError {
  const what = size === null ? `is more than ${maxBytes} bytes` : `is ${size} bytes`;
  return new FileRefusedError('too-large', `${what}: the limit is ${maxBytes} bytes`);
}

/**
 * Opens a regular file for reading without blocking, checked on the descriptor.
 * @returns the open handle (the caller closes it) and its stats
 * @throws FileRefusedError for anything else; the `open` error (with its `code`) when it cannot be opened
 */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await open(path, READ_FLAGS);
  try {
    const stats = await handle.stat();
    assertRegular(stats);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads a whole regular file of at most `maxBytes` bytes.
 * @throws FileRefusedError when it is not a regular file or is too large; fs errors (with `code`) otherwise
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  const { handle, stats } = await openRegularFile(path);
  try {
    if (stats.size > maxBytes) throw tooLarge(stats.size, maxBytes);
    return await readOpenFile(handle, maxBytes);
  } finally {
    await handle.close();
  }
}

/** {@link readRegularFile}, synchronously (for loaders that are synchronous). */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    assertRegular(stats, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    // The size fstat gave, and a byte to find the end, is usually all: no 64 KiB buffer for a small file.
    let size = stats.size > 0 && stats.size < CHUNK ? stats.size + 1 : CHUNK;
    for (;;) {
      const buffer = Buffer.allocUnsafe(size);
      const n = readSync(fd, buffer, 0, size, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(null, maxBytes);
      chunks.push(buffer.subarray(0, n));
      size = CHUNK;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the rest of an open file, at most `maxBytes` bytes.
 * @throws FileRefusedError (`too-large`) as soon as more arrive
 */
export async function readOpenFile(handle: FileHandle, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const { bytesRead: n } = await handle.read(buffer, 0, CHUNK, null);
    if (n === 0) break;
    total += n;
    // Checked as bytes arrive: the size from fstat may be stale or 0.
    if (total > maxBytes) throw tooLarge(null, maxBytes);
    chunks.push(buffer.subarray(0, n));
  }
  return Buffer.concat(chunks, total);
}
