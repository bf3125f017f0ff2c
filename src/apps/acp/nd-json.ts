/**
 * The ACP wire over stdio with size limits: newline-delimited JSON-RPC like the SDK's `ndJsonStream` (a parse
 * error, a batch or a non-object answers an `id: null` error), with two differences.
 *
 * - A line over `maxLineBytes` (kept below the SDK's own 32 MiB, whose breach ends a connection without a word)
 *   is never buffered whole: it is skipped up to its newline and answered with a JSON-RPC error for its request
 *   id when one can be read from it (`id: null` otherwise), and the connection goes on.
 * - An outgoing message over `maxMessageBytes` is never written (a client would drop the connection): a response
 *   becomes an error response for its id, a request of the agent (a permission question) is answered locally
 *   with an error so its caller fails closed, and a notification is dropped. Each is reported through `log`.
 *
 * A failure of the input stream, or of a write it must make itself (an error answer), is recorded in `failure()`,
 * so the command can exit non-zero with a message.
 * @module
 */
import * as acp from '@agentclientprotocol/sdk';
import { IdSniffer } from './id-sniffer.js';

/** The limits of one connection. */
export interface WireLimits {
  /** The longest line read from the client, in bytes. */
  maxLineBytes: number;
  /** The largest message written to the client, in bytes (its newline included). */
  maxMessageBytes: number;
}

/** 8 MiB each way: far above any real prompt or update, far below the SDK's 32 MiB. */
export const WIRE_LIMITS: WireLimits = { maxLineBytes: 8 * 1024 * 1024, maxMessageBytes: 8 * 1024 * 1024 };

const NEWLINE = 0x0a;

/**
 * Builds the message stream over a byte output and input.
 * @param output the bytes to the client (stdout)
 * @param input the bytes from the client (stdin)
 * @param log one line of diagnostics (stderr)
 * @param limits the size limits
 * @returns the stream for `connect()`, and the input's failure once it failed
 */
export function boundedNdJsonStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  log: (line: string) => void,
  limits: WireLimits = WIRE_LIMITS,
): { stream: acp.Stream; failure(): Error | null } {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const writer = output.getWriter();
  let failure: Error | null = null;
  let inbound: ReadableStreamDefaultController<acp.AnyMessage> | null = null;
  let cancelled = false;
  let inputReader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let writes: Promise<void> = Promise.resolve();

  const writeBytes = (bytes: Uint8Array): Promise<void> => {
    const write = writes.then(() => writer.write(bytes));
    writes = write.catch(() => undefined);
    return write;
  };

  const send = (message: acp.AnyMessage): Promise<void> => {
    const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
    if (bytes.byteLength <= limits.maxMessageBytes) return writeBytes(bytes);
    const size = `${bytes.byteLength} bytes, over the ${limits.maxMessageBytes}-byte message limit`;
    if ('method' in message && 'id' in message) {
      log(`dsh-mode acp: the ${message.method} request (${size}) was not sent`);
      // Answer our own request as the client would have refused it: the caller fails closed.
      reply({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32603, message: `the ${message.method} request (${size}) was not sent` },
      });
      return Promise.resolve();
    }
    if ('method' in message) {
      log(`dsh-mode acp: a ${message.method} notification (${size}) was dropped`);
      return Promise.resolve();
    }
    log(`dsh-mode acp: a response (${size}) was replaced by an error`);
    return send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32603, message: `the response (${size}) was not sent` },
    });
  };

  // Hands a message to the connection; after it closed (and cancelled the stream) nobody reads it.
  const reply = (message: acp.AnyMessage): void => {
    if (cancelled) return;
    try {
      inbound?.enqueue(message);
    } catch {
      // closed in between: nobody waits for it
    }
  };

  const onLine = async (bytes: Uint8Array): Promise<void> => {
    const text = decoder.decode(bytes).trim();
    if (text === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      await send(protocolError(acp.RequestError.parseError()));
      return;
    }
    if (Array.isArray(message)) {
      await send(
        protocolError(acp.RequestError.invalidRequest(undefined, 'JSON-RPC batches are not supported')),
      );
    } else if (typeof message === 'object' && message !== null) {
      reply(message as acp.AnyMessage);
    } else {
      await send(protocolError(acp.RequestError.invalidRequest(message)));
    }
  };

  const onOversized = async (bytes: number, id: acp.JsonRpcId | undefined): Promise<void> => {
    const text = `the message is ${bytes} bytes, over the ${limits.maxLineBytes}-byte limit, and was not read`;
    log(`dsh-mode acp: ${text}${id === undefined ? ' (no request id could be read from it)' : ''}`);
    await send({ jsonrpc: '2.0', id: id ?? null, error: { code: -32600, message: text } });
  };

  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      inbound = controller;
      const reader = input.getReader();
      inputReader = reader;
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      // Set while skipping a line over the limit: what it sniffs, and how long the line is so far.
      let skipping: { sniffer: IdSniffer; bytes: number } | null = null;
      const take = (segment: Uint8Array): void => {
        if (skipping) {
          skipping.sniffer.push(segment);
          skipping.bytes += segment.byteLength;
        } else if (pendingBytes + segment.byteLength > limits.maxLineBytes) {
          const sniffer = new IdSniffer();
          for (const part of pending) sniffer.push(part);
          sniffer.push(segment);
          skipping = { sniffer, bytes: pendingBytes + segment.byteLength };
          pending = [];
          pendingBytes = 0;
        } else {
          pending.push(segment);
          pendingBytes += segment.byteLength;
        }
      };
      const endLine = async (): Promise<void> => {
        if (skipping) {
          const { sniffer, bytes } = skipping;
          skipping = null;
          await onOversized(bytes, sniffer.id());
          return;
        }
        const line = pending.length === 1 ? pending[0]! : concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await onLine(line);
      };
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done || cancelled) break;
          let start = 0;
          for (let end = value.indexOf(NEWLINE); end !== -1; end = value.indexOf(NEWLINE, start)) {
            take(value.subarray(start, end));
            start = end + 1;
            await endLine();
          }
          // Copied: the reader may reuse the chunk's buffer.
          if (start < value.byteLength) take(value.slice(start));
        }
        if (cancelled) return;
        if (skipping || pendingBytes > 0) await endLine();
        controller.close();
      } catch (error) {
        if (cancelled) return;
        failure = error instanceof Error ? error : new Error(String(error));
        controller.error(failure);
      } finally {
        reader.releaseLock();
      }
    },
    // The connection closed on its own: stop reading.
    cancel(reason) {
      cancelled = true;
      return inputReader?.cancel(reason);
    },
  });

  const writable = new WritableStream<acp.AnyMessage>({ write: (message) => send(message) });
  return { stream: { readable, writable }, failure: () => failure };
}

function protocolError(error: acp.RequestError): acp.AnyMessage {
  return { jsonrpc: '2.0', id: null, error: error.toErrorResponse() };
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
