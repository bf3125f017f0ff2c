/**
 * `write`: creates or replaces a file in the workspace (parent folders are created). The file is opened by a
 * walk from the workspace root that checks each folder on its descriptor (see open.ts), so a link swapped in by
 * another process while the call runs cannot send the write outside the workspace.
 * @module
 */
import type { Tool } from '../types.js';
import { openForWrite, replaceContent } from './open.js';
import { confine } from './paths.js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';

/** The `write` tool: destructive (it overwrites), idempotent, closed-world. */
export const writeTool: Tool<{ path: string; content: string }> = {
  name: 'write',
  description: 'Create or overwrite a file in the workspace with the given content.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path, relative to the workspace root.' },
      content: { type: 'string' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  annotations: BUILTIN_TOOL_ANNOTATIONS.write,
  async execute(args, context) {
    const file = confine(context.workspace, args.path, context.paths);
    const handle = await openForWrite(file, 'write');
    try {
      await replaceContent(handle, args.content);
    } finally {
      await handle.close();
    }
    return { content: `Wrote ${Buffer.byteLength(args.content)} bytes to ${file.display}` };
  },
};
