/**
 * Loading a scripted model's script from YAML or JSON (JSON is read as YAML). Syntax errors and entries of the
 * wrong shape are errors naming `file:line:column`.
 * @module
 */
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { FileRefusedError, readRegularFileSync } from '../../files/read-file.js';
import type { ScriptEntry } from './scripted.js';

const ENTRY_KEYS = new Set(['text', 'tool_calls']);
const CALL_KEYS = new Set(['name', 'arguments']);

/** Parses a script's text; `file` names it in errors. */
export function parseScript(text: string, file: string): ScriptEntry[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (node: Node | null | undefined, offset?: number): string => {
    const position = lineCounter.linePos(offset ?? node?.range?.[0] ?? 0);
    return `${file}:${position.line}:${position.col}`;
  };
  const first = doc.errors[0];
  if (first) throw new Error(`${at(null, first.pos[0])}: ${first.message.split('\n')[0]}`);
  const root = doc.contents;
  if (!isSeq(root)) throw new Error(`${at(root)}: a script is a list of entries`);
  root.items.forEach((item, i) => {
    const node = item as Node;
    if (!isMap(node))
      throw new Error(`${at(node)}: entry ${i + 1} must be a mapping with text and/or tool_calls`);
    for (const pair of node.items) {
      const key = String((pair.key as { value?: unknown })?.value);
      if (!ENTRY_KEYS.has(key))
        throw new Error(`${at(pair.key as Node)}: unknown key \`${key}\` (use text, tool_calls)`);
    }
    const textNode = node.get('text', true) as Node | undefined;
    if (textNode && typeof (textNode as { value?: unknown }).value !== 'string') {
      throw new Error(`${at(textNode)}: text must be a string`);
    }
    const calls = node.get('tool_calls', true) as Node | undefined;
    if (!textNode && !calls) throw new Error(`${at(node)}: entry ${i + 1} needs text or tool_calls`);
    if (calls === undefined) return;
    if (!isSeq(calls)) throw new Error(`${at(calls)}: tool_calls must be a list`);
    for (const call of calls.items as Node[]) {
      if (!isMap(call)) throw new Error(`${at(call)}: a tool call is a mapping {name, arguments}`);
      for (const pair of call.items) {
        const key = String((pair.key as { value?: unknown })?.value);
        if (!CALL_KEYS.has(key))
          throw new Error(`${at(pair.key as Node)}: unknown key \`${key}\` (use name, arguments)`);
      }
      const name = call.get('name', true) as Node | undefined;
      if (!name || typeof (name as { value?: unknown }).value !== 'string') {
        throw new Error(`${at(name ?? call)}: a tool call needs a string name`);
      }
      const args = call.get('arguments', true) as Node | undefined;
      if (args !== undefined && !isMap(args)) throw new Error(`${at(args)}: arguments must be a mapping`);
    }
  });
  return doc.toJS({ maxAliasCount: 100 }) as ScriptEntry[];
}

/** Largest script file read, in bytes. */
export const MAX_SCRIPT_BYTES = 16 * 1024 * 1024;

/**
 * Reads and parses a script file.
 * @throws an error naming the file when it is not a regular file, is larger than {@link MAX_SCRIPT_BYTES}, cannot
 * be read or does not parse
 */
export function loadScript(file: string): ScriptEntry[] {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(file, MAX_SCRIPT_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError)
      throw new Error(`cannot read the script \`${file}\`: it ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder'
          : String((error as Error).message);
    throw new Error(`cannot read the script \`${file}\`: ${why}`);
  }
  return parseScript(bytes.toString('utf8'), file);
}
