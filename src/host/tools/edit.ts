/**
 * `edit`: replaces one exact, unique occurrence of `old_string` in a workspace file with `new_string`. Zero or
 * several occurrences are an error (quote more context to make it unique). The file is read and rewritten
 * through one descriptor, opened as `write` opens its file (see open.ts), so the file the gate checked is the file
 * changed.
 * A file that is not valid UTF-8 is refused unchanged: decoding it lossily would rewrite bytes far from the edit.
 * @module
 */
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';
import { readOpenFile } from '../../files/read-file.js';
import type { Tool } from '../types.js';
import { openForWrite, replaceContent } from './open.js';
import { confine } from './paths.js';

/** Largest file `edit` changes, in bytes. */
export const EDIT_MAX_BYTES = 16 * 1024 * 1024;
/** Strict UTF-8 that keeps a byte order mark, so an edited file keeps every byte it had outside the edit. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The `edit` tool: destructive, not idempotent (a second run finds nothing to replace), closed-world. */
export const editTool: Tool<{ path: string; old_string: string; new_string: string }> = {
  name: 'edit',
  description: 'Replace one exact, unique occurrence of old_string with new_string in a workspace file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root.' },
      old_string: { type: 'string', minLength: 1 },
      new_string: { type: 'string' },
    },
    required: ['path', 'old_string', 'new_string'],
    additionalProperties: false,
  },
  annotations: BUILTIN_TOOL_ANNOTATIONS.edit,
  async execute(args, context) {
    const file = confine(context.workspace, args.path, context.paths);
    const handle = await openForWrite(file, 'edit');
    try {
      const { size } = await handle.stat();
      if (size > EDIT_MAX_BYTES) {
        return {
          content: `Error: \`${file.display}\` has ${size} bytes, more than the ${EDIT_MAX_BYTES} that edit changes; use write`,
          isError: true,
        };
      }
      const bytes = await readOpenFile(handle, EDIT_MAX_BYTES);
      let text: string;
      try {
        text = UTF8.decode(bytes);
      } catch {
        // A lossy decode would write U+FFFD over every byte that is not UTF-8, far from the edited text.
        return {
          content: `Error: \`${file.display}\` is not UTF-8 text, and edit would damage it; use write to replace it whole`,
          isError: true,
        };
      }
      const first = text.indexOf(args.old_string);
      if (first === -1)
        return { content: `Error: old_string was not found in ${file.display}`, isError: true };
      if (text.indexOf(args.old_string, first + 1) !== -1) {
        const count = text.split(args.old_string).length - 1;
        return {
          content: `Error: old_string occurs ${count} times in ${file.display}; include more context to make it unique`,
          isError: true,
        };
      }
      const next = text.slice(0, first) + args.new_string + text.slice(first + args.old_string.length);
      await replaceContent(handle, next);
      return { content: `Edited ${file.display}` };
    } finally {
      await handle.close();
    }
  },
};
