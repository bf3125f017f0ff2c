/**
 * `grep`: a JavaScript regular expression over the workspace's text files, as `path:line: text`. Skips `.git`,
 * `node_modules` and `.dsh`, does not follow symbolic links (so it cannot leave the workspace), skips files over 1 MiB and
 * stops at a match cap.
 * @module
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Tool } from '../types.js';
import { confine, explainMissing } from './paths.js';

// `.dsh` holds the host's own state (session logs): searching it would find the search itself.
const SKIP = new Set(['.git', 'node_modules', '.dsh']);
const MAX_MATCHES = 200;
const MAX_FILE = 1024 * 1024;
const MAX_PATTERN = 4096;

/** The `grep` tool: read-only, idempotent, closed-world. */
export const grepTool: Tool<{ pattern: string; path?: string; ignoreCase?: boolean }> = {
  name: 'grep',
  description:
    'Search the workspace files for a regular expression (JavaScript syntax). Prints path:line: text. Skips .git, node_modules and .dsh.',
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression.' },
      path: { type: 'string', description: 'File or folder to search (default the workspace root).' },
      ignoreCase: { type: 'boolean' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async execute(args, context) {
    // V8 quotes the whole pattern in its syntax errors: a huge one would come back to the model whole.
    if (args.pattern.length > MAX_PATTERN) {
      const why = `a pattern of ${args.pattern.length} characters is longer than the limit of ${MAX_PATTERN}`;
      return { content: `Error: ${why}`, isError: true };
    }
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, args.ignoreCase ? 'i' : '');
    } catch (error) {
      return { content: `Error: invalid regular expression: ${(error as Error).message}`, isError: true };
    }
    const start = confine(context.workspace, args.path ?? '.');
    const root = confine(context.workspace, '.').absolute;
    const matches: string[] = [];
    const visit = async (path: string): Promise<void> => {
      if (matches.length >= MAX_MATCHES || context.signal.aborted) return;
      const info = await lstat(path);
      if (info.isSymbolicLink()) return;
      if (info.isDirectory()) {
        for (const name of (await readdir(path)).sort()) {
          if (!SKIP.has(name)) await visit(join(path, name));
        }
        return;
      }
      if (!info.isFile() || info.size > MAX_FILE) return;
      const text = await readFile(path, 'utf8');
      if (text.includes('\u0000')) return;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length && matches.length < MAX_MATCHES; i++) {
        if (regex.test(lines[i]!)) matches.push(`${relative(root, path)}:${i + 1}: ${lines[i]}`);
      }
    };
    await lstat(start.absolute).catch((error) => explainMissing(error, start.display));
    await visit(start.absolute);
    if (matches.length === 0) return { content: 'No matches.' };
    const more = matches.length >= MAX_MATCHES ? `\n(stopped at ${MAX_MATCHES} matches)` : '';
    return { content: matches.join('\n') + more };
  },
};
