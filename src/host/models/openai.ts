/**
 * An OpenAI-compatible chat-completions model (DeepSeek by default: https://api.deepseek.com, `deepseek-chat`, key
 * from `DEEPSEEK_API_KEY` or config). Streams with server-sent events, assembling tool calls whose arguments arrive
 * in fragments; retries 429 and 5xx answers with exponential backoff (honouring `Retry-After`) and a connection
 * failure before any byte of the answer; a per-request timeout; cancellation through the request's AbortSignal.
 * A malformed stream or a connection dropped mid-answer is an error (not retried: part of it was streamed).
 * @module
 */
import type { Model, ModelChunk, ModelMessage, ModelRequest, ModelResponse } from '../types.js';
import { readSse } from './sse.js';

/** Options of the OpenAI-compatible model. */
export interface OpenAIModelOptions {
  /** Default `https://api.deepseek.com`; `/chat/completions` is appended. */
  baseUrl?: string;
  /** Default `deepseek-chat`. */
  model?: string;
  /** Default `process.env.DEEPSEEK_API_KEY`. */
  apiKey?: string;
  /** Per attempt, until the stream ends; default 120000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 3. */
  maxRetries?: number;
  /** First backoff delay, doubled per retry; default 500 ms. */
  backoffMs?: number;
  /** Extra body fields (temperature, …). */
  extraBody?: Record<string, unknown>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

/** The wire form of the transcript. */
export function toWireMessages(system: string, messages: ModelMessage[]): unknown[] {
  const wire: unknown[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of messages) {
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
        ...(calls.length ? { tool_calls: calls } : {}),
      });
    }
  }
  return wire;
}

/** The endpoint used when `baseUrl` is not set (DeepSeek's API). */
export const DEFAULT_BASE_URL = 'https://api.deepseek.com';

/** Creates the model. */
export function openaiModel(options: OpenAIModelOptions = {}): Model {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? 'deepseek-chat';
  const maxRetries = options.maxRetries ?? 3;
  const backoff = options.backoffMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 120_000;
  return {
    name: `openai:${model}`,
    async complete(request: ModelRequest, onChunk?: (chunk: ModelChunk) => void): Promise<ModelResponse> {
      const apiKey = options.apiKey ?? process.env.DEEPSEEK_API_KEY;
      if (!apiKey) throw new Error('no API key: set DEEPSEEK_API_KEY or pass apiKey');
      const body = JSON.stringify({
        model,
        stream: true,
        messages: toWireMessages(request.header.system, request.messages),
        ...(request.header.tools.length
          ? { tools: request.header.tools.map((tool) => ({ type: 'function', function: tool })) }
          : {}),
        ...options.extraBody,
      });
      for (let attempt = 0; ; attempt++) {
        const state = { streamed: false };
        try {
          return await attemptOnce(
            `${baseUrl}/chat/completions`,
            apiKey,
            body,
            timeoutMs,
            request.signal,
            onChunk,
            state,
          );
        } catch (error) {
          if (request.signal?.aborted) throw error;
          const retryable =
            (error instanceof HttpError && (error.status === 429 || error.status >= 500)) ||
            (!(error instanceof HttpError) && !state.streamed && (error as Error).name !== 'MalformedStream');
          if (!retryable || attempt >= maxRetries) throw error;
          const wait =
            error instanceof HttpError && error.retryAfterMs !== null
              ? error.retryAfterMs
              : backoff * 2 ** attempt;
          await sleep(wait, request.signal);
        }
      }
    },
  };
}

async function attemptOnce(
  url: string,
  apiKey: string,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  onChunk: ((chunk: ModelChunk) => void) | undefined,
  state: { streamed: boolean },
): Promise<ModelResponse> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${apiKey}`,
        accept: 'text/event-stream',
      },
      body,
      signal: combined,
    });
  } catch (error) {
    throw timeout.aborted && !signal?.aborted ? new Error(`no answer within ${timeoutMs} ms`) : error;
  }
  if (!response.ok || !response.body) {
    const text = (await response.text().catch(() => '')).slice(0, 500);
    const after = Number(response.headers.get('retry-after'));
    throw new HttpError(
      response.status,
      `HTTP ${response.status} from ${url}: ${text}`,
      Number.isFinite(after) && after >= 0 && response.headers.has('retry-after') ? after * 1000 : null,
    );
  }
  let text = '';
  // Keyed by the server's `index`, not an array: a negative, fractional or huge index is just a key (an array
  // dropped the first two silently and turned the last into billions of slots to walk).
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  let nextIndex = 0;
  let finished = false;
  try {
    for await (const data of readSse(response.body)) {
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
      const choice = parsed.choices?.[0];
      if (!choice) continue;
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
    if (timeout.aborted) throw new Error(`the answer did not finish within ${timeoutMs} ms`);
    if ((error as Error).name === 'MalformedStream') throw error;
    throw new Error(`the connection dropped mid-answer: ${(error as Error).message}`);
  }
  if (!finished) throw new Error('the stream ended before the answer finished');
  return {
    text,
    toolCalls: [...calls]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({ name: call.name, arguments: parseArguments(call.arguments) })),
  };
}

interface StreamChunk {
  choices?: {
    delta?: {
      content?: string | null;
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
