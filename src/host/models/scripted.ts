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
  const script = entries.map((entry) => structuredClone(entry));
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
        arguments: structuredClone(call.arguments ?? {}),
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
