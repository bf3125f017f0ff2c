/**
 * `grep`: a regular expression over the workspace's text files, as `path:line: text`. Skips `.git`,
 * `node_modules` and `.dsh`, does not follow symbolic links (so it cannot leave the workspace; every file and
 * folder is opened relative to its checked parent, and the starting path is the one the gate checked, see open.ts), skips files over 1 MiB and anything that is not
 * a regular file.
 *
 * Matching uses RE2 (re2js), whose time is linear in the text: no pattern can make a search take years, as
 * `(.|.)*\u0001` does with a backtracking engine. Linear is not small, though: the cost per character grows with
 * the compiled pattern's size. So every call has a budget of matching steps (pattern size × characters), each
 * synchronous match gets a slice of it (a longer line is searched only in its first part, and the note says so),
 * the event loop is yielded between slices, and cancellation is checked there. Output is capped by match count,
 * line length and bytes, each with a note.
 * @module
 */
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../compile/index.js';
import { FileRefusedError, readOpenFile } from '../../files/read-file.js';
import type { Tool } from '../types.js';
import { openChild, openForRead, type OpenNode } from './open.js';
import { confine } from './paths.js';

// `.dsh` holds the host's own state (session logs): searching it would find the search itself.
const SKIP = new Set(['.git', 'node_modules', '.dsh']);
/** Most matching lines returned. */
export const GREP_MAX_MATCHES = 200;
/** Most bytes of output returned. */
export const GREP_MAX_BYTES = 64 * 1024;
/** Most characters of one matching line shown. */
export const GREP_LINE_SHOWN = 500;
/** Largest pattern, in characters. */
export const GREP_MAX_PATTERN = 4096;
/** Largest compiled pattern, in RE2 instructions (the per-character cost of matching grows with it). */
export const GREP_MAX_PROGRAM = 5000;
const MAX_FILE = 1024 * 1024;
// Matching steps: one synchronous match (a few tens of milliseconds at worst), and a whole call.
const SLICE_STEPS = 2 ** 23;
const TOTAL_STEPS = 2 ** 32;
// Per-character work of a small program, in program-size units (measured: re2js spends it whatever the size).
const STEP_OVERHEAD = 16;

/** The `grep` tool: read-only, idempotent, closed-world. */
export const grepTool: Tool<{ pattern: string; path?: string; ignoreCase?: boolean }> = {
  name: 'grep',
  description:
    'Search the workspace files for a regular expression in RE2 syntax (as in Go: no backreferences, no lookahead or lookbehind). ' +
    `Prints path:line: text, at most ${GREP_MAX_MATCHES} matches. Skips .git, node_modules and .dsh.`,
  parameters: {
    type: 'object',
    properties: {
      pattern: { type: 'string', description: 'Regular expression (RE2 syntax).' },
      path: { type: 'string', description: 'File or folder to search (default the workspace root).' },
      ignoreCase: { type: 'boolean' },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  annotations: BUILTIN_TOOL_ANNOTATIONS.grep,
  async execute(args, context) {
    // Syntax errors quote the pattern: a huge one would come back to the model whole.
    if (args.pattern.length > GREP_MAX_PATTERN) {
      const why = `a pattern of ${args.pattern.length} characters is longer than the limit of ${GREP_MAX_PATTERN}`;
      return { content: `Error: ${why}`, isError: true };
    }
    let regex: RE2JS;
    try {
      regex = RE2JS.compile(args.pattern, args.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      const why = (error as Error).message.replace(/^error parsing regexp: /, '');
      return {
        content: `Error: invalid regular expression: ${why}; grep uses RE2 syntax (no backreferences, no lookahead or lookbehind)`,
        isError: true,
      };
    }
    if (regex.programSize() > GREP_MAX_PROGRAM) {
      return {
        content: `Error: the pattern compiles to ${regex.programSize()} instructions, more than the limit of ${GREP_MAX_PROGRAM}; use fewer or smaller repetitions`,
        isError: true,
      };
    }
    const start = confine(context.workspace, args.path ?? '.', context.paths);
    const search = new Search(regex, context.signal);
    const node = await openForRead(start, 'any');
    try {
      if (node.stats.isDirectory()) await search.folder(node, start.display === '.' ? '' : start.display);
      else await search.file(node, start.display);
    } finally {
      await node.handle.close();
    }
    if (search.stopped === 'cancelled') return { content: 'Error: grep was cancelled', isError: true };
    return { content: search.report() };
  },
};

/** One call's walk, its budget and its output. */
class Search {
  readonly lines: string[] = [];
  bytes = 0;
  stopped: 'matches' | 'bytes' | 'budget' | 'cancelled' | null = null;
  private spent = 0;
  private sinceYield = 0;
  private longLines = 0;
  private cutLines = 0;
  private largeFiles = 0;
  private readonly lineChars: number;

  constructor(
    private readonly regex: RE2JS,
    private readonly signal: AbortSignal,
  ) {
    this.lineChars = Math.floor(SLICE_STEPS / (regex.programSize() + STEP_OVERHEAD));
  }

  async folder(dir: OpenNode, display: string): Promise<void> {
    const names: string[] = [];
    try {
      for await (const entry of await opendir(dir.ref)) {
        if (!SKIP.has(entry.name)) names.push(entry.name);
      }
    } catch {
      // A folder we may not list (or one removed meanwhile) is skipped, as an unreadable file is.
      return;
    }
    names.sort();
    for (const name of names) {
      if (this.stopped || this.cancelled()) return;
      const child = await openChild(dir, name);
      if (!child) continue;
      try {
        const path = display ? join(display, name) : name;
        if (child.stats.isDirectory()) await this.folder(child, path);
        else await this.file(child, path);
      } finally {
        await child.handle.close();
      }
    }
  }

  async file(node: OpenNode, display: string): Promise<void> {
    if (node.stats.size > MAX_FILE) {
      this.largeFiles++;
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readOpenFile(node.handle, MAX_FILE);
    } catch (error) {
      if (!(error instanceof FileRefusedError)) throw error;
      this.largeFiles++;
      return;
    }
    if (bytes.includes(0)) return;
    const lines = bytes.toString('utf8').split('\n');
    for (let i = 0; i < lines.length && !this.stopped; i++) {
      const line = lines[i]!;
      const searched = line.length > this.lineChars ? line.slice(0, this.lineChars) : line;
      if (searched !== line) this.longLines++;
      const cost = (this.regex.programSize() + STEP_OVERHEAD) * (searched.length + 1);
      if (this.spent + cost > TOTAL_STEPS) {
        this.stopped = 'budget';
        return;
      }
      this.spent += cost;
      this.sinceYield += cost;
      if (this.regex.matcher(searched).find()) this.add(`${display}:${i + 1}: `, line);
      if (this.sinceYield >= SLICE_STEPS) {
        this.sinceYield = 0;
        // Let other sessions, Ctrl-C and session/cancel run between slices.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.cancelled()) return;
      }
    }
  }

  private add(prefix: string, line: string): void {
    if (this.lines.length >= GREP_MAX_MATCHES) {
      this.stopped = 'matches';
      return;
    }
    let shown = line;
    if (line.length > GREP_LINE_SHOWN) {
      shown = `${line.slice(0, GREP_LINE_SHOWN)} […]`;
      this.cutLines++;
    }
    const text = prefix + shown;
    const size = Buffer.byteLength(text) + 1;
    if (this.bytes + size > GREP_MAX_BYTES) {
      this.stopped = 'bytes';
      return;
    }
    this.lines.push(text);
    this.bytes += size;
    if (this.lines.length >= GREP_MAX_MATCHES) this.stopped = 'matches';
  }

  private cancelled(): boolean {
    if (this.signal.aborted) this.stopped = 'cancelled';
    return this.stopped === 'cancelled';
  }

  report(): string {
    const notes: string[] = [];
    if (this.stopped === 'matches') notes.push(`stopped at ${GREP_MAX_MATCHES} matches`);
    if (this.stopped === 'bytes') notes.push(`stopped at ${GREP_MAX_BYTES} bytes of output`);
    if (this.stopped === 'budget')
      notes.push('stopped: the search budget ran out; search a smaller path or use a simpler pattern');
    if (this.cutLines) notes.push(`${this.cutLines} long lines shown cut to ${GREP_LINE_SHOWN} characters`);
    if (this.longLines)
      notes.push(
        `${this.longLines} lines longer than ${this.lineChars} characters were searched only in their first ${this.lineChars} characters (a simpler pattern searches further)`,
      );
    if (this.largeFiles) notes.push(`${this.largeFiles} files over ${MAX_FILE} bytes were skipped`);
    const body = this.lines.length ? this.lines.join('\n') : 'No matches.';
    return notes.length ? `${body}\n(${notes.join('; ')})` : body;
  }
}
