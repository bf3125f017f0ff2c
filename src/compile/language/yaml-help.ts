/**
 * Three YAML mistakes people make in policy files, explained where they are made, with the fix. The yaml
 * library reports the first two as "nested mappings are not allowed in compact mappings" at the value of the line
 * ABOVE an over-indented line, or at a value holding `: `; the third parses without error and becomes a key
 * without a value.
 *
 * - An unquoted `: ` inside a value (`description: Review a change: read only`): at the value, help quotes it.
 * - An over-indented line (`  read: allow` then `    write: deny`; "all mapping items must start at the same
 *   column" when the value above ends with a comment): at the over-indented line, help gives the column of the
 *   key above it.
 * - A comma inside an unquoted value of a `{ … }` mapping (`{ decision: deny, reason: no writes, use the plan }`):
 *   the comma ends the value and the rest becomes a key with no value; at that key, help quotes the whole value.
 *
 * Each explanation is an offset range into the text and a message and help; `parse.ts` turns them into
 * diagnostics. Anything that does not fit one of these shapes is left to the library's own message.
 * @module
 */
import { isMap, isPair, isScalar, isSeq, Scalar, type Pair } from 'yaml';

/** A mistake explained: where (offsets into the text, end exclusive), what, and how to fix it. */
export interface YamlHelp {
  start: number;
  end: number;
  message: string;
  help: string;
}

/** The start and end (before the newline) of the line holding `offset`. */
function lineAround(text: string, offset: number): { start: number; end: number } {
  // `lastIndexOf` reads a negative start as 0: at offset 0 it would find a newline there and return 1.
  const start = offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
  const newline = text.indexOf('\n', offset);
  const end = newline === -1 ? text.length : newline;
  return { start, end: end > start && text[end - 1] === '\r' ? end - 1 : end };
}

/** A plain value's text: up to a ` #` comment, without trailing blanks. */
function plainValue(rest: string): string {
  const comment = /\s#/.exec(rest);
  return (comment ? rest.slice(0, comment.index) : rest).trimEnd();
}

/** Where a line's key starts: after its indentation and any `- ` of a list item. */
function keyColumnOf(lineText: string): number {
  return /^[ \t]*(?:-[ \t]+)*/.exec(lineText)![0].length;
}

/** The first line at or after `offset` that holds more than blanks or a comment. */
function nextContent(text: string, offset: number): { start: number; end: number } | undefined {
  let at = offset;
  while (at < text.length) {
    const line = lineAround(text, at);
    const content = text.slice(line.start, line.end).trim();
    if (content !== '' && !content.startsWith('#')) return line;
    at = line.end + 1;
  }
  return undefined;
}

/** The explanation for `line`, indented deeper than `key`, which starts at `keyColumn` of the line above. */
function overIndented(
  text: string,
  line: { start: number; end: number },
  key: string,
  keyColumn: number,
): YamlHelp {
  const content = text.slice(line.start, line.end);
  const indent = /^[ \t]*/.exec(content)![0].length;
  const shown = content.trim();
  return {
    start: line.start + indent,
    end: line.end,
    message: `this line is indented deeper than \`${key}\` above it, which already has a value: YAML cannot nest it there`,
    help: `start \`${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}\` at column ${keyColumn + 1}, as \`${key}\` is`,
  };
}

/**
 * Explains the library's "nested mappings are not allowed in compact mappings" (`BLOCK_AS_IMPLICIT_KEY`).
 * @param text the whole text
 * @param offset where the library reported it (the start of a plain value)
 * @returns the explanation, or undefined when the text is not one of the two known shapes
 */
export function explainBlockAsKey(text: string, offset: number): YamlHelp | undefined {
  const line = lineAround(text, offset);
  const value = plainValue(text.slice(offset, line.end));
  const keyColumn = keyColumnOf(text.slice(line.start, line.end));
  const written = text.slice(line.start + keyColumn, offset).trimEnd();
  if (!written.endsWith(':')) return undefined;
  const key = written.slice(0, -1).trimEnd();
  if (/:(?=[ \t]|$)/.test(value) && !/^["'[{|>&*!]/.test(value)) {
    return {
      start: offset,
      end: offset + value.length,
      message: `the value \`${value}\` holds a colon that YAML reads as the start of a mapping`,
      help: `quote the value: \`${written} ${JSON.stringify(value)}\``,
    };
  }
  const next = nextContent(text, line.end + 1);
  if (next === undefined || /^[ \t]*/.exec(text.slice(next.start, next.end))![0].length <= keyColumn) {
    return undefined;
  }
  return overIndented(text, next, key, keyColumn);
}

/**
 * Explains the library's "all mapping items must start at the same column" (`BAD_INDENT`) when it is a line
 * indented deeper than the `key: value` above it (a value that ends with a comment, say).
 * @param text the whole text
 * @param offset where the library reported it (the start of a line, possibly a blank one before the line)
 * @returns the explanation, or undefined for another shape (a line indented less than its siblings)
 */
export function explainBadIndent(text: string, offset: number): YamlHelp | undefined {
  const line = nextContent(text, offset);
  if (line === undefined) return undefined;
  const indent = /^[ \t]*/.exec(text.slice(line.start, line.end))![0].length;
  // The nearest line above with content that starts left of this one: the key it is wrongly indented under.
  for (let end = line.start - 1; end > 0;) {
    const above = lineAround(text, end - 1);
    const content = text.slice(above.start, above.end);
    const trimmed = content.trim();
    end = above.start;
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const keyColumn = keyColumnOf(content);
    if (keyColumn >= indent) continue;
    const pair = /^((?:[^:#\s][^:#]*?)|"[^"]*"|'[^']*'):[ \t]+[^#\s]/.exec(content.slice(keyColumn));
    return pair ? overIndented(text, line, pair[1]!, keyColumn) : undefined;
  }
  return undefined;
}

/**
 * Finds the values of `{ … }` mappings that a comma cut short: a plain value followed by keys with no `:`, which
 * is what `reason: no writes, use the plan` becomes inside braces.
 * @param root the parsed document's contents
 * @param text the whole text
 * @returns one explanation per cut value, at its first orphaned key
 */
export function explainFlowCommas(root: unknown, text: string): YamlHelp[] {
  const found: YamlHelp[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
    if (isPair(node)) stack.push(node.value);
    if (!isMap(node)) continue;
    const items = node.items as Pair[];
    for (const pair of items) stack.push(pair.value);
    if (!node.flow) continue;
    for (let i = 0; i < items.length; i++) {
      const cut = items[i]!;
      if (!isScalar(cut.value) || cut.value.type !== Scalar.PLAIN || !isScalar(cut.key)) continue;
      // The keys right after it that have no `:` at all (a `key:` with an empty value is a Scalar, not null).
      let last = i;
      while (last + 1 < items.length && isOrphanKey(items[last + 1]!)) last++;
      if (last === i) continue;
      // Prose (a space in the value or in what the comma cut off) is a cut value; `{ read: allow, write }` is a
      // rule without its decision, which the schema reports.
      const words = [cut.value, ...items.slice(i + 1, last + 1).map((p) => p.key as Scalar)];
      if (!words.some((w) => /\s/.test(String(w.value)))) {
        i = last;
        continue;
      }
      const valueStart = cut.value.range![0];
      const orphan = items[i + 1]!.key as Scalar;
      const end = (items[last]!.key as Scalar).range![1];
      const whole = text.slice(valueStart, end);
      const key = text.slice(cut.key.range![0], cut.key.range![1]);
      found.push({
        start: orphan.range![0],
        end: orphan.range![1],
        message: `\`${String(orphan.value)}\` is read as a key with no value: in \`{ … }\`, a comma ends the value \`${String(cut.value.value)}\``,
        help: `quote the value: \`${key}: ${JSON.stringify(whole)}\``,
      });
      i = last;
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

function isOrphanKey(pair: Pair): boolean {
  return pair.value === null && isScalar(pair.key) && pair.key.type === Scalar.PLAIN;
}
