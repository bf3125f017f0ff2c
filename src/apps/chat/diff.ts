/**
 * What an approval question shows for a call of the built-in `write` or `edit`: the change as a unified diff of
 * the file (its current content read from the workspace, as the tool would find it), not the call's JSON. The
 * diff is whole (a long harmless hunk must not hide the part being approved); lines are styled for colour
 * (removed red, added green, hunk headers cyan) and escaped by the box that shows them. Any other call, or one
 * whose arguments do not have the tool's shape, is shown as its JSON.
 * @module
 */
import { readOpenFile } from '../../files/read-file.js';
import { openForRead } from '../../host/tools/open.js';
import { confine } from '../../host/tools/paths.js';
import { bodyLines, type BoxLine } from './render.js';

/** Lines of context around a change. */
const CONTEXT = 3;
/** Largest file read to show the change to it. */
const MAX_READ_BYTES = 4 * 1024 * 1024;
/** Above this many line pairs the changed middle is shown as removed then added, without matching lines. */
const MAX_MATCH_CELLS = 4_000_000;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One line of an edit script. */
type Op = { kind: ' ' | '-' | '+'; line: string };

/**
 * The body of the approval card of a call: a diff for `write` and `edit`, else the arguments as JSON.
 * @param toolName the asked tool
 * @param args the call's arguments
 * @param workspace the folder the call's file tools work in
 */
export async function callCardBody(toolName: string, args: unknown, workspace: string): Promise<BoxLine[]> {
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const path = record.path;
  if (toolName === 'write' && typeof path === 'string' && typeof record.content === 'string') {
    const current = await currentText(workspace, path);
    return [
      ...current.notes,
      ...unifiedDiff(path, current.text ?? '', record.content, current.text === null),
    ];
  }
  if (
    toolName === 'edit' &&
    typeof path === 'string' &&
    typeof record.old_string === 'string' &&
    typeof record.new_string === 'string'
  ) {
    const { old_string: before, new_string: after } = record;
    const current = await currentText(workspace, path);
    const text = current.text;
    const at = text === null ? -1 : text.indexOf(before);
    if (text !== null && at !== -1 && text.indexOf(before, at + 1) === -1) {
      const next = text.slice(0, at) + after + text.slice(at + before.length);
      return unifiedDiff(path, text, next, false);
    }
    const why =
      text === null
        ? current.notes
        : [
            {
              text: `(old_string is not found exactly once in ${path}: the edit will fail)`,
              style: 'yellow' as const,
            },
          ];
    return [...why, ...unifiedDiff(path, before, after, false)];
  }
  return bodyLines(JSON.stringify(args ?? {}, null, 2));
}

/** The file's text as the tool will find it: null when it does not exist or cannot be read (with a note why). */
async function currentText(
  workspace: string,
  path: string,
): Promise<{ text: string | null; notes: BoxLine[] }> {
  const note = (text: string): { text: null; notes: BoxLine[] } => ({
    text: null,
    notes: [{ text, style: 'yellow' }],
  });
  let node;
  try {
    node = await openForRead(confine(workspace, path), 'file');
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      /does not exist|no such file/i.test(String(error))
    )
      return { text: null, notes: [{ text: '(a new file)', style: 'yellow' }] };
    return note(`(the current file cannot be read: ${(error as Error).message})`);
  }
  try {
    if (node.stats.size > MAX_READ_BYTES)
      return note(`(the current file has ${node.stats.size} bytes: not shown)`);
    return { text: UTF8.decode(await readOpenFile(node.handle, MAX_READ_BYTES)), notes: [] };
  } catch (error) {
    return note(
      error instanceof TypeError
        ? '(the current file is not UTF-8 text: not shown)'
        : `(the current file cannot be read: ${(error as Error).message})`,
    );
  } finally {
    await node.handle.close();
  }
}

/**
 * A unified diff of `before` and `after` as styled lines, hunks with {@link CONTEXT} lines of context.
 * @param path the file's name in the headers
 * @param created true when the file does not exist yet (`--- /dev/null`)
 */
export function unifiedDiff(path: string, before: string, after: string, created: boolean): BoxLine[] {
  const out: BoxLine[] = [
    { text: `--- ${created ? '/dev/null' : `a/${path}`}`, style: 'bold' },
    { text: `+++ b/${path}`, style: 'bold' },
  ];
  const ops = editScript(splitLines(before), splitLines(after));
  if (!ops.some((op) => op.kind !== ' ')) return [...out, { text: '(no change)', style: 'dim' }];
  for (const hunk of hunks(ops)) {
    out.push({ text: hunk.header, style: 'cyan' });
    for (const op of hunk.ops) {
      const style = op.kind === '-' ? 'red' : op.kind === '+' ? 'green' : undefined;
      out.push(style ? { text: `${op.kind}${op.line}`, style } : { text: `${op.kind}${op.line}` });
    }
  }
  return out;
}

/** Lines without their newlines; a final newline ends the last line rather than starting an empty one. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The shortest edit script from `a` to `b` (common prefix and suffix kept, the middle by longest common subsequence). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > MAX_MATCH_CELLS) {
    ops.push(...midA.map((line) => ({ kind: '-' as const, line })));
    ops.push(...midB.map((line) => ({ kind: '+' as const, line })));
  } else ops.push(...lcsScript(midA, midB));
  ops.push(...a.slice(endA).map((line) => ({ kind: ' ' as const, line })));
  return ops;
}

function lcsScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lengths[i * (m + 1) + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!)
      ops.push({ kind: '-', line: a[i++]! });
    else ops.push({ kind: '+', line: b[j++]! });
  }
  while (i < n) ops.push({ kind: '-', line: a[i++]! });
  while (j < m) ops.push({ kind: '+', line: b[j++]! });
  return ops;
}

/** The script cut into hunks: each change with its context, changes closer than twice the context merged. */
function hunks(ops: readonly Op[]): { header: string; ops: Op[] }[] {
  const out: { header: string; ops: Op[] }[] = [];
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  let k = 0;
  while (k < changed.length) {
    const first = changed[k]!;
    let last = first;
    while (k + 1 < changed.length && changed[k + 1]! - last <= 2 * CONTEXT + 1) last = changed[++k]!;
    k++;
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length, last + CONTEXT + 1);
    // Line numbers where the hunk starts in each side: the lines before it that each side has.
    let oldStart = 1;
    let newStart = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== '+') oldStart++;
      if (op.kind !== '-') newStart++;
    }
    const slice = ops.slice(from, to);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    const range = (start: number, count: number): string =>
      count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
    out.push({ header: `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`, ops: slice });
  }
  return out;
}
