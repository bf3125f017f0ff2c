/**
 * `edit`: replaces one exact, unique occurrence of `old_string` in a workspace file with `new_string`. Zero or
 * several occurrences are an error (quote more context to make it unique).
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Tool } from '../types.js';
import { confine, explainMissing } from './paths.js';

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
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async execute(args, context) {
    const file = confine(context.workspace, args.path);
    const text = await readFile(file.absolute, 'utf8').catch((error) => explainMissing(error, file.display));
    const first = text.indexOf(args.old_string);
    if (first === -1) return { content: `Error: old_string was not found in ${file.display}`, isError: true };
    if (text.indexOf(args.old_string, first + 1) !== -1) {
      const count = text.split(args.old_string).length - 1;
      return {
        content: `Error: old_string occurs ${count} times in ${file.display}; include more context to make it unique`,
        isError: true,
      };
    }
    const next = text.slice(0, first) + args.new_string + text.slice(first + args.old_string.length);
    await writeFile(file.absolute, next);
    return { content: `Edited ${file.display}` };
  },
};
