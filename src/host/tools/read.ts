/**
 * `read`: a text file of the workspace, or a window of its lines (`offset` 1-based, `limit` lines). Output is
 * capped; lines are returned as they are (no numbering), so an `edit` can quote them exactly. A window is read
 * incrementally: only the bytes up to its end are read, and only the window is kept, so a window of a huge file
 * costs memory for the window alone. Anything but a regular file (a FIFO, a device) is refused without blocking.
 * @module
 */
import type { FileHandle } from 'node:fs/promises';
import type { Tool } from '../types.js';
import { openForRead } from './open.js';
import { confine } from './paths.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';

/** Largest file `read` returns whole, in bytes; larger files need `offset`/`limit`. Also the cap of a window. */
export const READ_MAX_BYTES = 256 * 1024;

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** The `read` tool: read-only, idempotent, closed-world. */
export const readTool: Tool<{ path: string; offset?: number; limit?: number }> = {
  name: 'read',
  description:
    'Read a text file in the workspace. Optional offset (1-based first line) and limit (number of lines).',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root.' },
      offset: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
      limit: { type: 'integer', minimum: 1, description: 'Number of lines to return.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  annotations: BUILTIN_TOOL_ANNOTATIONS.read,
  async execute(args, context) {
    const file = confine(context.workspace, args.path, context.paths);
    const { handle, stats } = await openForRead(file, 'any');
    try {
      if (stats.isDirectory())
        return { content: `Error: \`${file.display}\` is a directory; use list`, isError: true };
      const windowed = args.offset !== undefined || args.limit !== undefined;
      if (!windowed) {
        if (stats.size > READ_MAX_BYTES) {
          return {
            content: `Error: \`${file.display}\` has ${stats.size} bytes (more than ${READ_MAX_BYTES}); read it with offset and limit`,
            isError: true,
          };
        }
        const window = await readWindow(handle, 0, Infinity, context.signal);
        if (window.cancelled) return cancelled(file.display);
        if (window.cut) {
          return {
            content: `Error: \`${file.display}\` grew past ${READ_MAX_BYTES} bytes while it was read; read it with offset and limit`,
            isError: true,
          };
        }
        return { content: window.text };
      }
      const window = await readWindow(handle, (args.offset ?? 1) - 1, args.limit ?? Infinity, context.signal);
      if (window.cancelled) return cancelled(file.display);
      const note = window.cut
        ? `\n[window cut at ${READ_MAX_BYTES} bytes; read fewer lines, or from a later offset, to see the rest]`
        : '';
      return { content: window.text + note };
    } finally {
      await handle.close();
    }
  },
};

function cancelled(display: string): { content: string; isError: true } {
  return { content: `Error: the read of \`${display}\` was cancelled`, isError: true };
}

/**
 * The lines `[skip, skip + count)` of a file (split on `\n`, joined with `\n`), read chunk by chunk from the
 * start, keeping at most {@link READ_MAX_BYTES} bytes. Stops reading at the window's end.
 */
async function readWindow(
  handle: FileHandle,
  skip: number,
  count: number,
  signal: AbortSignal,
): Promise<{ text: string; cut: boolean; cancelled: boolean }> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let line = 0; // the line the next byte belongs to
  const end = skip + count;
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (;;) {
    if (signal.aborted) return { text: '', cut: false, cancelled: true };
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
    if (bytesRead === 0) break;
    let from = line >= skip ? 0 : -1;
    let stop = false;
    for (let i = 0; i < bytesRead && !stop; i++) {
      if (buffer[i] !== NEWLINE) continue;
      line++;
      if (line === skip) from = i + 1;
      else if (line === end) {
        if (from >= 0) keep(buffer.subarray(from, i));
        from = -1;
        stop = true;
      }
    }
    if (from >= 0) keep(buffer.subarray(from, bytesRead));
    if (stop || keptBytes > READ_MAX_BYTES) break;
  }
  const cut = keptBytes > READ_MAX_BYTES;
  const bytes = Buffer.concat(kept).subarray(0, READ_MAX_BYTES);
  return { text: decodeWhole(bytes, cut), cut, cancelled: false };

  function keep(part: Buffer): void {
    if (keptBytes > READ_MAX_BYTES) return;
    // Copied: `buffer` is reused for the next chunk.
    kept.push(Buffer.from(part.subarray(0, READ_MAX_BYTES + 1 - keptBytes)));
    keptBytes += Math.min(part.length, READ_MAX_BYTES + 1 - keptBytes);
  }
}

/** UTF-8 text of `bytes`; a cut one drops a character split by the cut instead of showing U+FFFD. */
function decodeWhole(bytes: Buffer, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    let back = 0;
    while (back < 3 && back < end && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
    const lead = bytes[end - back - 1] ?? 0;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (length > back + 1) end -= back + 1;
  }
  return bytes.subarray(0, end).toString('utf8');
}
