/**
 * `write`: creates or replaces a file in the workspace (parent folders are created).
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Tool } from '../types.js';
import { confine } from './paths.js';

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
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async execute(args, context) {
    const file = confine(context.workspace, args.path);
    await mkdir(dirname(file.absolute), { recursive: true });
    // Re-checked after mkdir: a folder created by the call must not have turned the path into an escape.
    confine(context.workspace, args.path);
    await writeFile(file.absolute, args.content);
    return { content: `Wrote ${Buffer.byteLength(args.content)} bytes to ${file.display}` };
  },
};
