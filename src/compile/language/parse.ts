/**
 * Parsing policy text (YAML or JSON) with source positions. JSON text (a `.json` file) is first held to strict
 * JSON syntax (`json-syntax.ts`: no trailing commas, no comments); valid JSON is then read like YAML, whose flow
 * syntax it is, so both share one tree and one position mapper.
 *
 * Contract: `parsePolicyText` never throws. Syntax errors, duplicate keys and hostile-input limits (size, nesting
 * depth, alias expansion, NUL or control bytes) become error diagnostics with 1-based positions (end exclusive),
 * and `data` is then `undefined` when nothing trustworthy could be built. Three common YAML mistakes (a `: ` in an
 * unquoted value, an over-indented line, a comma in a `{ … }` value) are explained at their line with the fix
 * (`yaml-help.ts`). `locate(path)` maps a JSON path to the
 * range of its node (the closest existing parent when the path does not exist); `keyRange(path)` gives the key's.
 * @module
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { makeDiagnostic, sortDiagnostics, type LoadDiagnostic } from './diagnostics.js';
import { jsonSyntaxError } from './json-syntax.js';
import { explainBadIndent, explainBlockAsKey, explainFlowCommas, type YamlHelp } from './yaml-help.js';
import type { JsonPath, Range } from '../types.js';

/** Largest policy text accepted, in UTF-8 bytes. */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * The syntax a file is read in, by its name.
 * @param file the file's name or label (`git:REV:path` too), or null for inline text
 * @returns `json` for `*.json`, else `yaml`
 */
function syntaxOf(file: string | null): 'yaml' | 'json' {
  return file !== null && /\.json$/i.test(file) ? 'json' : 'yaml';
}

/** Deepest nesting of maps and sequences accepted (a policy needs four). */
export const MAX_DEPTH = 64;
/** Most alias expansions accepted when building data (alias bombs). */
export const MAX_ALIAS_COUNT = 100;

/** A parsed policy text: the data, its findings, and position lookups into the source. */
export interface ParsedDocument {
  file: string | null;
  text: string;
  /** The plain data, or `undefined` when the text could not be parsed safely. */
  data: unknown;
  diagnostics: LoadDiagnostic[];
  /** The range of the value at `path`, or of its closest existing parent. */
  locate(path: JsonPath): Range | undefined;
  /** The range of the key at `path` (its last segment), falling back to `locate`. */
  keyRange(path: JsonPath): Range | undefined;
}

// C0 controls other than tab, LF and CR, plus DEL: YAML forbids them, and they mean a binary file.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Options of {@link parsePolicyText}. */
export interface ParseOptions {
  /** What the text is, in messages (default `policy`; the deployment loader says `deployment`). */
  subject?: string;
  /** The text's syntax; default `json` for a file named `*.json` (any case), else `yaml`. */
  syntax?: 'yaml' | 'json';
}

/**
 * Parses one policy text. `file` is the path as the user gave it (null for inline documents).
 * @returns the parsed document; check `diagnostics` for errors
 */
export function parsePolicyText(
  text: string,
  file: string | null,
  options: ParseOptions = {},
): ParsedDocument {
  const subject = options.subject ?? 'policy';
  const lines = new LineCounter();
  const keys: KeyIndex = new WeakMap();
  let doc: Document.Parsed | undefined;
  const result: ParsedDocument = {
    file,
    text,
    data: undefined,
    diagnostics: [],
    locate: (path) => (doc ? locateNode(doc, lines, path, false, keys) : undefined),
    keyRange: (path) => (doc ? locateNode(doc, lines, path, true, keys) : undefined),
  };
  const fail = (code: LoadDiagnostic['code'], message: string, offset = 0, help?: string) => {
    result.diagnostics.push(makeDiagnostic(code, 'error', message, file, [], pointRange(text, offset), help));
    return result;
  };

  const bytes = text.length * 3 > MAX_POLICY_BYTES ? Buffer.byteLength(text, 'utf8') : text.length;
  if (bytes > MAX_POLICY_BYTES) {
    return fail(
      'too-large',
      `${subject} is ${bytes} bytes: the limit is ${MAX_POLICY_BYTES} bytes (1 MiB)`,
      0,
      'split the policy into several files of the same mode',
    );
  }
  const control = CONTROL.exec(text);
  if (control) {
    const hex = control[0].charCodeAt(0).toString(16).padStart(2, '0');
    return fail(
      'syntax',
      `control character \`\\x${hex}\` in ${subject} text: this is not a YAML or JSON file`,
      control.index,
    );
  }
  if ((options.syntax ?? syntaxOf(file)) === 'json') {
    const invalid = jsonSyntaxError(text);
    if (invalid) {
      const range = rangeOfText(text, invalid.offset, invalid.length);
      result.diagnostics.push(
        makeDiagnostic('syntax', 'error', invalid.message, file, [], range, invalid.help),
      );
      return result;
    }
  }
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  } catch (error) {
    return fail('syntax', `cannot parse ${subject}: ${firstLine(error)}`);
  }
  const at = (offset: number) => rangeOf(lines, [offset, offset + 1]);
  const explain = (help: YamlHelp): LoadDiagnostic =>
    makeDiagnostic(
      'syntax',
      'error',
      help.message,
      file,
      [],
      rangeOf(lines, [help.start, help.end]),
      help.help,
    );
  // The library's second error at an explained place repeats the first ("implicit keys need to be on a single line").
  const explained = new Set<number>();
  for (const e of doc.errors) {
    if (e.code === 'RESOURCE_EXHAUSTION') {
      doc = undefined;
      result.diagnostics = [];
      return fail('too-deep', `${subject} nests too deeply: the limit is ${MAX_DEPTH} levels`, e.pos[0]);
    }
    if (e.code === 'DUPLICATE_KEY') {
      const key = keyAt(text, e.pos[0]);
      const range = rangeOf(lines, [e.pos[0], e.pos[0] + Math.max(1, key.length)]);
      const message = key ? `duplicate key \`${unquote(key)}\`` : 'duplicate key';
      result.diagnostics.push(
        makeDiagnostic(
          'duplicate-key',
          'error',
          message,
          file,
          [],
          range,
          'each key may appear once per mapping',
        ),
      );
      continue;
    }
    if (e.code === 'BLOCK_AS_IMPLICIT_KEY') {
      const help = explainBlockAsKey(text, e.pos[0]);
      if (help) {
        result.diagnostics.push(explain(help));
        explained.add(e.pos[0]);
        continue;
      }
    }
    if (e.code === 'BAD_INDENT') {
      const help = explainBadIndent(text, e.pos[0]);
      if (help) {
        result.diagnostics.push(explain(help));
        continue;
      }
    }
    if (e.code === 'MULTILINE_IMPLICIT_KEY' && explained.has(e.pos[0])) continue;
    result.diagnostics.push(
      makeDiagnostic('syntax', 'error', lowerFirst(firstLine(e)), file, [], rangeOf(lines, e.pos)),
    );
  }
  for (const w of doc.warnings) {
    result.diagnostics.push(
      makeDiagnostic('syntax', 'warning', lowerFirst(firstLine(w)), file, [], at(w.pos[0])),
    );
  }
  const deep = findTooDeep(doc.contents);
  if (deep) {
    result.diagnostics.push(
      makeDiagnostic(
        'too-deep',
        'error',
        `${subject} nests too deeply: the limit is ${MAX_DEPTH} levels`,
        file,
        [],
        at(deep),
      ),
    );
    return result;
  }
  // Well-formed YAML that is almost surely a mistake: a comma that cut a `{ … }` value short.
  for (const help of explainFlowCommas(doc.contents, text)) result.diagnostics.push(explain(help));
  for (const problem of keyProblems(doc.contents)) {
    result.diagnostics.push(
      makeDiagnostic(problem.code, 'error', problem.message, file, [], rangeOf(lines, problem.range)),
    );
  }
  // Duplicate keys leave a well-formed tree: keep going so schema findings are reported too (the file is
  // refused either way). After real syntax errors the tree is a guess: stop.
  if (result.diagnostics.some((d) => d.severity === 'error' && d.code !== 'duplicate-key')) {
    result.diagnostics = sortDiagnostics(result.diagnostics);
    return result;
  }
  try {
    result.data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = firstLine(error);
    const code = /alias/i.test(message) ? 'alias-limit' : 'syntax';
    return fail(
      code,
      code === 'alias-limit'
        ? `${subject} expands too many aliases: the limit is ${MAX_ALIAS_COUNT}`
        : `cannot build ${subject} data: ${lowerFirst(message)}`,
    );
  }
  result.diagnostics = sortDiagnostics(result.diagnostics);
  return result;
}

/** The source text of the key starting at `offset` (quoted or plain), as far as its `:`. */
function keyAt(text: string, offset: number): string {
  const m = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^:\n#,{}[\]]*?)\s*:/.exec(
    text.slice(offset, offset + 1024),
  );
  return m?.[1]?.trim() ?? '';
}

function unquote(key: string): string {
  return key.length > 1 && (key[0] === '"' || key[0] === "'") ? key.slice(1, -1) : key;
}

/** Finds a node deeper than MAX_DEPTH without recursion; returns its offset. */
function findTooDeep(root: unknown): number | undefined {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > MAX_DEPTH) return node.range?.[0] ?? 0;
    for (const item of node.items as unknown[]) {
      if (isPair(item)) stack.push([item.value, depth + 1], [item.key, depth + 1]);
      else stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

/**
 * Keys the data would silently merge: `toJS` turns every key into a string (`true` → "true", `0x10` → "16",
 * `null` → ""), so a non-string key can collide with another key of its mapping, the last one winning (by key
 * order). Duplicates of the same type are the parser's own `DUPLICATE_KEY` and are not repeated here.
 */
function keyProblems(root: unknown): { code: 'duplicate-key'; message: string; range: [number, number] }[] {
  const problems: { code: 'duplicate-key'; message: string; range: [number, number] }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
    if (!isMap(node)) continue;
    const seen = new Map<string, Node>();
    for (const pair of node.items as Pair[]) {
      stack.push(pair.value);
      const key = pair.key as Node | null;
      const range: [number, number] = [key?.range?.[0] ?? 0, key?.range?.[1] ?? 0];
      if (!isScalar(key)) continue;
      const name = key.value === null ? '' : String(key.value);
      const earlier = seen.get(name);
      if (!earlier) {
        seen.set(name, key);
      } else if (typeof key.value !== 'string' || typeof (earlier as typeof key).value !== 'string') {
        const shown = [earlier, key].map((k) =>
          typeof (k as typeof key).value === 'string' ? `"${name}"` : name,
        );
        problems.push({
          code: 'duplicate-key',
          message: `duplicate key \`${name}\` (\`${shown.join('` and `')}\` are the same key once read)`,
          range,
        });
      }
    }
  }
  return problems;
}

/** Per mapping node, its pairs by key (the first pair of each key), built on first lookup. */
type KeyIndex = WeakMap<YAMLMap, Map<string, Pair>>;

/** Mappings this small are searched directly: building an index costs more than it saves. */
const INDEX_MIN_ITEMS = 16;

/** The first pair of `map` whose scalar key is `key`, as `items.find` would return it. */
function pairOf(map: YAMLMap, key: string, keys: KeyIndex): Pair | undefined {
  const items = map.items as Pair[];
  if (items.length < INDEX_MIN_ITEMS) return items.find((p) => keyOf(p.key) === key);
  // Lint locates every finding and every rule reference: a linear scan per lookup made 100-rule documents
  // quadratic. Positions are read-only after parsing, so the index never goes stale.
  let index = keys.get(map);
  if (index === undefined) {
    index = new Map();
    for (const p of items) {
      const k = keyOf(p.key);
      if (k !== undefined && !index.has(k)) index.set(k, p);
    }
    keys.set(map, index);
  }
  return index.get(key);
}

function locateNode(
  doc: Document.Parsed,
  lines: LineCounter,
  path: JsonPath,
  wantKey: boolean,
  keys: KeyIndex,
): Range | undefined {
  let node: unknown = doc.contents;
  let keyNode: Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    let next: unknown;
    let nextKey: Node | undefined;
    if (isMap(node)) {
      const pair = pairOf(node, String(seg), keys);
      if (pair) {
        nextKey = isScalar(pair.key) ? pair.key : undefined;
        // An empty value (`tools:` and nothing) has a zero-width range: point at its key instead.
        next = isEmpty(pair.value) && i === path.length - 1 ? pair.key : (pair.value ?? pair.key);
      }
    } else if (isSeq(node) && typeof seg === 'number') {
      next = node.items[seg];
    }
    if (next === undefined || next === null) {
      // INVARIANT: a missing key points at the closest existing parent (its key when we have one).
      const parent = keyNode && wantKey ? keyNode : (node as Node | null);
      return nodeRange(lines, parent) ?? nodeRange(lines, keyNode);
    }
    node = next;
    keyNode = nextKey;
  }
  if (wantKey && keyNode) return nodeRange(lines, keyNode);
  return nodeRange(lines, node as Node) ?? nodeRange(lines, keyNode);
}

function isEmpty(node: unknown): boolean {
  const r = (node as { range?: [number, number, number] } | null)?.range;
  return !r || r[1] <= r[0];
}

function keyOf(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

function nodeRange(lines: LineCounter, node: Node | null | undefined): Range | undefined {
  const r = node && (node as { range?: [number, number, number] }).range;
  if (!r) return undefined;
  const start = lines.linePos(r[0]);
  const end = lines.linePos(Math.max(r[1], r[0]));
  return { start: { line: start.line, column: start.col }, end: { line: end.line, column: end.col } };
}

function rangeOf(lines: LineCounter, pos: readonly [number, number]): Range {
  const start = lines.linePos(pos[0]);
  const end = lines.linePos(Math.max(pos[1], pos[0]));
  return { start: { line: start.line, column: start.col }, end: { line: end.line, column: end.col } };
}

/** A one-character range at `offset`, computed from the raw text (before any parser ran). */
function pointRange(text: string, offset: number): Range {
  return rangeOfText(text, offset, 1);
}

/** The range of `length` code units at `offset` on its line, computed from the raw text. */
function rangeOfText(text: string, offset: number, length: number): Range {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  const column = offset - lineStart + 1;
  const lineEnd = text.indexOf('\n', offset);
  const width = Math.max(1, Math.min(length, (lineEnd === -1 ? text.length : lineEnd) - offset));
  return { start: { line, column }, end: { line, column: column + width } };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').replace(/\.$/, '');
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
