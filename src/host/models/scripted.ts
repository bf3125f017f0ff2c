/**
 * The scripted model: the embedded default and the test double. A script is a list consumed one entry per model
 * request, each entry `text` and/or `tool_calls: [{name, arguments}]` (several calls in one entry form one
 * assistant batch), e.g. `[{text: "Looking first.", tool_calls: [{name: read, arguments: {path: README.md}}]}, {text: Done.}]`.
 * Deterministic; a request past the end is a clear error; the text is streamed in a few chunks. It records every
 * request it receives (JSON copies) in `requests`, so tests can compare them with the log.
 * @module
 */
import type { Model, ModelChunk, ModelRequest, ModelResponse } from '../types.js';

/** One scripted answer. */
export interface ScriptEntry {
  text?: string;
  tool_calls?: { name: string; arguments?: Record<string, unknown> }[];
}

/** A scripted model, with what it has seen. */
export interface ScriptedModel extends Model {
  /** The requests received so far (header and messages, JSON copies). */
  readonly requests: Omit<ModelRequest, 'signal'>[];
  /** How many entries are left. */
  readonly remaining: number;
}

/** Splits text into at most `parts` chunks on word boundaries, so a UI sees it stream. */
export function chunkText(text: string, parts = 3): string[] {
  if (text.length === 0) return [];
  const words = text.split(/(?<=\s)/);
  const size = Math.ceil(words.length / parts);
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += size) chunks.push(words.slice(i, i + size).join(''));
  return chunks;
}

/**
 * A model answering from `entries`, in order.
 * @param options `name` (default `scripted`); `record` (default true) keeps each request in `requests`
 */
export function scriptedModel(
  entries: readonly ScriptEntry[],
  options: { name?: string; record?: boolean } = {},
): ScriptedModel {
  const record = options.record ?? true;
  const script = entries.map((entry) => copy(entry));
  const requests: Omit<ModelRequest, 'signal'>[] = [];
  let index = 0;
  return {
    name: options.name ?? 'scripted',
    requests,
    get remaining() {
      return script.length - index;
    },
    async complete(request: ModelRequest, onChunk?: (chunk: ModelChunk) => void): Promise<ModelResponse> {
      // Recording copies the whole transcript per request: O(history). Long runs (the demo, benchmarks) turn it off.
      if (record)
        requests.push(JSON.parse(JSON.stringify({ header: request.header, messages: request.messages })));
      if (request.signal?.aborted) throw abortError();
      const entry = script[index];
      if (!entry) {
        throw new Error(`the script has no entry for request ${index + 1} (it has ${script.length} entries)`);
      }
      index += 1;
      const text = entry.text ?? '';
      for (const piece of chunkText(text)) onChunk?.({ kind: 'text', text: piece });
      const toolCalls = (entry.tool_calls ?? []).map((call) => ({
        name: call.name,
        arguments: copy(call.arguments ?? {}),
      }));
      return { text, toolCalls };
    },
  };
}

function abortError(): Error {
  const error = new Error('the request was aborted');
  error.name = 'AbortError';
  return error;
}

/**
 * `structuredClone(value)`, by hand for what scripts hold (plain objects, dense arrays, strings, numbers,
 * booleans, null, nested no deeper than 64); anything else (a Date, a Map, a cycle, a null-prototype object, a
 * symbol or function, which it refuses) goes to `structuredClone` itself, so the result is always its result.
 * `structuredClone` costs microseconds even on a small object, once per scripted call.
 */
function copy<T>(value: T): T {
  const plain = plainCopy(value, 0);
  return plain === NOT_PLAIN ? structuredClone(value) : (plain as T);
}

const NOT_PLAIN: unique symbol = Symbol('not plain');

function plainCopy(value: unknown, depth: number): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (depth > 64) return NOT_PLAIN;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto === Array.prototype) {
    const array = value as unknown[];
    if (Object.keys(array).length !== array.length) return NOT_PLAIN; // holes or extra properties
    const out: unknown[] = new Array(array.length);
    for (let i = 0; i < array.length; i++) {
      const item = plainCopy(array[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  if (proto !== Object.prototype) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN; // an own `__proto__` key: assigning it would set the prototype
    const item = plainCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}
