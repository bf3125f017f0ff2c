/**
 * The errors of the OpenAI-compatible adapter, worded for the person reading them: an HTTP status with the
 * provider's own message, an error object the provider sent inside the stream, and a failed connection by its
 * cause (refused, host not found, reset, timed out) rather than fetch's bare "fetch failed".
 * @module
 */

/** How long a `Retry-After` is honoured; a longer one ends the request with an error that says so. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** A non-2xx answer. `retryAfterMs` is the server's `Retry-After`, when it sent a usable one. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * The provider's message in an error body or stream event: `{error: {message}}`, `{error: "text"}`, or `{message}`.
 * @param value the parsed JSON
 * @returns the message, or undefined when there is none
 */
export function providerMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { error, message } = value as { error?: unknown; message?: unknown };
  if (typeof error === 'string' && error !== '') return error;
  if (typeof error === 'object' && error !== null) {
    const inner = error as { message?: unknown; code?: unknown; type?: unknown };
    const code = typeof inner.code === 'string' || typeof inner.code === 'number' ? inner.code : inner.type;
    const text = typeof inner.message === 'string' ? inner.message : JSON.stringify(error);
    return typeof code === 'string' || typeof code === 'number' ? `${text} (${code})` : text;
  }
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/**
 * The text of an error body: the provider's message when the body is JSON with one, else the body cut to 500.
 * @param body the body text
 */
export function bodyMessage(body: string): string {
  try {
    const message = providerMessage(JSON.parse(body));
    if (message !== undefined) return message.slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return body.trim().slice(0, 500);
}

/**
 * A `Retry-After` header in milliseconds: seconds, or an HTTP date.
 * @param header the header value
 * @param now the current time (ms since the epoch)
 * @returns the delay, or null when absent or unusable
 */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name was not found (DNS)',
  EAI_AGAIN: 'the host name could not be looked up (DNS)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection failed',
};

/**
 * Why a request could not be made, from fetch's error and its `cause` chain.
 * @param error what fetch threw
 * @param url the endpoint
 */
export function describeConnectError(error: unknown, url: string): string {
  // Duck-typed: fetch's causes may come from another realm, where `instanceof Error` fails.
  const messages: string[] = [];
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && typeof cause === 'object' && cause !== null; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && Object.hasOwn(CAUSES, code))
      return `cannot reach ${url}: ${CAUSES[code]} (${code})`;
    if (typeof message === 'string' && message !== '') messages.push(message);
    cause = (cause as { cause?: unknown }).cause;
  }
  return `cannot reach ${url}: ${messages.length ? messages.join(': ') : String(error)}`;
}
