/**
 * `list`: the entries of a workspace folder, sorted, folders marked with a trailing `/`, symbolic links
 * with `@` (they are not followed). The folder is the one the gate checked, opened by a no-follow walk (see open.ts). Output is capped
 * by count and bytes, with a note saying how many entries were left out.
 * @module
 */
import { opendir } from 'node:fs/promises';
import type { Tool } from '../types.js';
import { openForRead } from './open.js';
import { confine, explainFsError } from './paths.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';

/** Most entries `list` shows. */
export const LIST_MAX_ENTRIES = 1000;
/** Most bytes of output `list` returns. */
export const LIST_MAX_BYTES = 64 * 1024;

/** The `list` tool: read-only, idempotent, closed-world. */
export const listTool: Tool<{ path?: string }> = {
  name: 'list',
  description: `List the entries of a folder in the workspace (default the root). Folders end with /, symbolic links with @. Shows at most ${LIST_MAX_ENTRIES} entries.`,
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Folder path, relative to the workspace root.' } },
    additionalProperties: false,
  },
  annotations: BUILTIN_TOOL_ANNOTATIONS.list,
  async execute(args, context) {
    const dir = confine(context.workspace, args.path ?? '.', context.paths);
    const node = await openForRead(dir, 'folder');
    const names: string[] = [];
    try {
      const entries = await opendir(node.ref).catch((error) => explainFsError(error, dir.display));
      for await (const entry of entries) {
        if (names.length % 1024 === 0 && context.signal.aborted) {
          return { content: `Error: the listing of \`${dir.display}\` was cancelled`, isError: true };
        }
        names.push(
          entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name,
        );
      }
    } finally {
      await node.handle.close();
    }
    if (names.length === 0) return { content: '(empty folder)' };
    names.sort();
    const shown: string[] = [];
    let bytes = 0;
    for (const name of names) {
      const size = Buffer.byteLength(name) + 1;
      if (shown.length >= LIST_MAX_ENTRIES || bytes + size > LIST_MAX_BYTES) break;
      shown.push(name);
      bytes += size;
    }
    const cut = names.length - shown.length;
    const note = cut
      ? `\n(${cut} more entries not shown: the listing stops at ${LIST_MAX_ENTRIES} entries or ${LIST_MAX_BYTES} bytes; list a subfolder or use grep)`
      : '';
    return { content: shown.join('\n') + note };
  },
};
