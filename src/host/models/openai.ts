/**
 * An OpenAI-compatible chat-completions model (DeepSeek by default: https://api.deepseek.com, `deepseek-chat`, key
 * from `apiKey` or the environment variable `apiKeyEnv` names, `DEEPSEEK_API_KEY` by default; no key sends no
 * `Authorization` header, for a local server). Streams with server-sent events, assembling tool calls whose
 * arguments arrive in fragments and the reasoning (`reasoning_content`) of a thinking model. Retries 429 and 5xx
 * answers with exponential backoff (honouring a `Retry-After` up to `MAX_RETRY_AFTER_MS`; a longer one is an error
 * that says so) and a failure before any byte of the answer; times out when the server sends nothing for
 * `timeoutMs` (a long answer that keeps streaming is never cut); cancels through the request's AbortSignal.
 * A malformed stream, an error the provider sends inside the stream, or a connection dropped mid-answer is an
 * error (not retried: part of it may have been streamed).
 *
 * Reasoning goes back to the server the way DeepSeek's thinking mode requires: on the assistant messages after
 * the last user-role message (the current turn's tool-call loop, as the server sees the transcript), never on
 * earlier ones.
 * @module
 */
import type { Model, ModelChunk, ModelMessage, ModelRequest, ModelResponse } from '../types.js';
import { readSse } from './sse.js';
import {
  bodyMessage,
  describeConnectError,
  HttpError,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  providerMessage,
} from './wire-errors.js';

/** Options of the OpenAI-compatible model. */
export interface OpenAIModelOptions {
  /** Default `https://api.deepseek.com`; `/chat/completions` is appended. */
  baseUrl?: string;
  /** Default `deepseek-chat`. */
  model?: string;
  /** The key; default the environment variable `apiKeyEnv` names. */
  apiKey?: string;
  /** The environment variable that holds the key when `apiKey` is not set; default `DEEPSEEK_API_KEY`. */
  apiKeyEnv?: string;
  /** Inactivity limit per attempt: the longest wait for the next bytes of the answer; default 120000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 3. */
  maxRetries?: number;
  /** First backoff delay, doubled per retry; default 500 ms. */
  backoffMs?: number;
  /** Extra body fields (temperature, …). */
  extraBody?: Record<string, unknown>;
}

/** The wire form of the transcript; reasoning only on the assistant messages after the last user-role one. */
export function toWireMessages(system: string, messages: readonly ModelMessage[]): unknown[] {
  const wire: unknown[] = system === '' ? [] : [{ role: 'system', content: system }];
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  messages.forEach((message, index) => {
    if (message.role === 'user') wire.push({ role: 'user', content: message.content });
    else if (message.role === 'tool')
      wire.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
    else {
      const calls = message.toolCalls.map((call) => ({
        id: call.callId,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
      }));
      wire.push({
        role: 'assistant',
        content: message.content === '' && calls.length ? null : message.content,
        ...(index > lastUser && message.reasoning !== undefined
          ? { reasoning_content: message.reasoning }
          : {}),
        ...(calls.length ? { tool_calls: calls } : {}),
      });
    }
  });
  return wire;
}

/** The endpoint used when `baseUrl` is not set (DeepSeek's API). */
export const DEFAULT_BASE_URL = 'https://api.deepseek.com';

/** The environment variable read for the key when neither `apiKey` nor `apiKeyEnv` is set. */
export const DEFAULT_API_KEY_ENV = 'DEEPSEEK_API_KEY';

/** Creates the model. */
export function openaiModel(options: OpenAIModelOptions = {}): Model {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? 'deepseek-chat';
  const maxRetries = options.maxRetries ?? 3;
  const backoff = options.backoffMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const keyEnv = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  return {
    name: `openai:${model}`,
    async complete(request: ModelRequest, onChunk?: (chunk: ModelChunk) => void): Promise<ModelResponse> {
      const apiKey = options.apiKey || process.env[keyEnv] || undefined;
      const body = JSON.stringify({
        model,
        stream: true,
        messages: toWireMessages(request.header.system, request.messages),
        ...(request.header.tools.length
          ? { tools: request.header.tools.map((tool) => ({ type: 'function', function: tool })) }
          : {}),
        ...options.extraBody,
      });
      const url = `${baseUrl}/chat/completions`;
      for (let attempt = 0; ; attempt++) {
        const state = { streamed: false };
        try {
          return await attemptOnce(url, apiKey, body, timeoutMs, request.signal, onChunk, state);
        } catch (error) {
          if (request.signal?.aborted) throw error;
          if (error instanceof HttpError && (error.status === 401 || error.status === 403) && !apiKey)
            throw new Error(`${error.message} (no API key was sent: set ${keyEnv} or \`apiKey\`)`);
          const retryable =
            (error instanceof HttpError && (error.status === 429 || error.status >= 500)) ||
            (!(error instanceof HttpError) && !state.streamed && !FINAL.has((error as Error).name));
          if (!retryable || attempt >= maxRetries) throw error;
          const after = error instanceof HttpError ? error.retryAfterMs : null;
          if (after !== null && after > MAX_RETRY_AFTER_MS)
            throw new Error(
              `${(error as Error).message} (the server asks to retry after ${Math.ceil(after / 1000)} s, longer than the ${MAX_RETRY_AFTER_MS / 1000} s this client waits)`,
            );
          await sleep(after ?? backoff * 2 ** attempt, request.signal);
        }
      }
    },
  };
}

/** Errors that a new attempt would only repeat. */
const FINAL = new Set(['MalformedStream', 'ProviderError']);

async function attemptOnce(
  url: string,
  apiKey: string | undefined,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  onChunk: ((chunk: ModelChunk) => void) | undefined,
  state: { streamed: boolean },
): Promise<ModelResponse> {
  // Inactivity, not total time: every chunk of bytes (a keep-alive comment too) restarts the clock.
  const idle = new AbortController();
  const timer = setTimeout(() => idle.abort(new Error('idle')), timeoutMs);
  const touch = (): void => void timer.refresh();
  const combined = signal ? AbortSignal.any([signal, idle.signal]) : idle.signal;
  const timedOut = (): boolean => idle.signal.aborted && !signal?.aborted;
  try {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          accept: 'text/event-stream',
        },
        body,
        signal: combined,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (timedOut()) throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
      throw new Error(describeConnectError(error, url));
    }
    touch();
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw new HttpError(
        response.status,
        `HTTP ${response.status} from ${url}: ${bodyMessage(text) || response.statusText}`,
        parseRetryAfter(response.headers.get('retry-after')),
      );
    }
    return await readAnswer(response.body, url, timeoutMs, signal, timedOut, touch, onChunk, state);
  } finally {
    clearTimeout(timer);
  }
}

async function readAnswer(
  stream: ReadableStream<Uint8Array>,
  url: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  timedOut: () => boolean,
  touch: () => void,
  onChunk: ((chunk: ModelChunk) => void) | undefined,
  state: { streamed: boolean },
): Promise<ModelResponse> {
  let text = '';
  let reasoning = '';
  // Keyed by the server's `index`, not an array: a negative, fractional or huge index is just a key (an array
  // dropped the first two silently and turned the last into billions of slots to walk).
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  let nextIndex = 0;
  let finished = false;
  try {
    for await (const data of readSse(stream, touch)) {
      if (data === '[DONE]') {
        finished = true;
        break;
      }
      let parsed: StreamChunk;
      try {
        parsed = JSON.parse(data) as StreamChunk;
      } catch {
        const error = new Error(`malformed stream from ${url}: ${data.slice(0, 200)}`);
        error.name = 'MalformedStream';
        throw error;
      }
      if (
        parsed !== null &&
        typeof parsed === 'object' &&
        parsed.error !== undefined &&
        parsed.error !== null
      ) {
        const error = new Error(`the provider reported an error: ${providerMessage(parsed)}`);
        error.name = 'ProviderError';
        throw error;
      }
      const choice = parsed?.choices?.[0];
      if (!choice) continue;
      const thought = choice.delta?.reasoning_content;
      if (typeof thought === 'string' && thought !== '') {
        reasoning += thought;
        state.streamed = true;
        onChunk?.({ kind: 'reasoning', text: thought });
      }
      const content = choice.delta?.content;
      if (typeof content === 'string' && content !== '') {
        text += content;
        state.streamed = true;
        onChunk?.({ kind: 'text', text: content });
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        state.streamed = true;
        const index = typeof fragment.index === 'number' ? fragment.index : nextIndex;
        if (index >= nextIndex) nextIndex = Math.floor(index) + 1;
        let call = calls.get(index);
        if (!call) calls.set(index, (call = { name: '', arguments: '' }));
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      }
      if (choice.finish_reason) finished = true;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    if (timedOut()) {
      const idle = new Error(`the stream from ${url} sent nothing for ${timeoutMs} ms`);
      idle.name = 'IdleTimeout';
      throw idle;
    }
    if (FINAL.has((error as Error).name)) throw error;
    throw new Error(`the connection dropped mid-answer: ${(error as Error).message}`);
  }
  if (!finished) throw new Error('the stream ended before the answer finished');
  return {
    text,
    ...(reasoning !== '' ? { reasoning } : {}),
    toolCalls: [...calls]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ name: call.name, arguments: parseArguments(call.arguments) })),
  };
}

interface StreamChunk {
  error?: unknown;
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
}

/** Arguments JSON as sent; unparsable text is passed on as the string, so validation reports it to the model. */
function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
