/**
 * `write`: creates or replaces a file in the workspace (parent folders are created). The path is the resolution
 * the gate decided on (or the tool's own, resolved the same way; see paths.ts), opened by a no-follow walk from
 * the workspace root (see open.ts), so a link swapped in by another process since the check makes the call fail
 * instead of sending the write elsewhere.
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
