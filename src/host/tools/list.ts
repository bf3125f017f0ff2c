/**
 * `list`: the entries of a workspace folder, sorted, folders marked with a trailing `/`, symbolic links
 * with `@` (they are not followed).
 * @module
 */
import { readdir } from 'node:fs/promises';
import type { Tool } from '../types.js';
import { confine, explainMissing } from './paths.js';

/** The `list` tool: read-only, idempotent, closed-world. */
export const listTool: Tool<{ path?: string }> = {
  name: 'list',
  description:
    'List the entries of a folder in the workspace (default the root). Folders end with /, symbolic links with @.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Folder path, relative to the workspace root.' } },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async execute(args, context) {
    const dir = confine(context.workspace, args.path ?? '.');
    const entries = await readdir(dir.absolute, { withFileTypes: true }).catch((error) =>
      explainMissing(error, dir.display),
    );
    const names = entries
      .map((entry) =>
        entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name,
      )
      .sort();
    return { content: names.length ? names.join('\n') : '(empty folder)' };
  },
};
