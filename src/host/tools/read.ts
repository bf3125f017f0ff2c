/**
 * `read`: a text file of the workspace, or a window of its lines (`offset` 1-based, `limit` lines). Output is
 * capped; lines are returned as they are (no numbering), so an `edit` can quote them exactly.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import type { Tool } from '../types.js';
import { confine, explainMissing } from './paths.js';

/** Largest file `read` returns whole, in bytes; larger files need `offset`/`limit`. */
export const READ_MAX_BYTES = 256 * 1024;

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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async execute(args, context) {
    const file = confine(context.workspace, args.path);
    const info = await stat(file.absolute).catch((error) => explainMissing(error, file.display));
    if (info.isDirectory())
      return { content: `Error: \`${file.display}\` is a directory; use list`, isError: true };
    const windowed = args.offset !== undefined || args.limit !== undefined;
    if (!windowed && info.size > READ_MAX_BYTES) {
      return {
        content: `Error: \`${file.display}\` has ${info.size} bytes (more than ${READ_MAX_BYTES}); read it with offset and limit`,
        isError: true,
      };
    }
    const text = await readFile(file.absolute, 'utf8');
    if (!windowed) return { content: text };
    const lines = text.split('\n');
    const start = (args.offset ?? 1) - 1;
    const slice = lines.slice(start, args.limit === undefined ? undefined : start + args.limit);
    return { content: slice.join('\n').slice(0, READ_MAX_BYTES) };
  },
};
