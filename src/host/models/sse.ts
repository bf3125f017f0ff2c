/**
 * Server-sent events for chat-completions streams, parsed by `eventsource-parser` (LF, CR and CRLF line ends,
 * linear in line length). Bytes are decoded with one streaming `TextDecoder`, so a character split across network
 * chunks arrives whole and a leading BOM is dropped. Yields the `data` of each event. An event buffered past `maxEventChars`
 * is an error (`MalformedStream`), not unbounded memory. A last event without its closing blank line is still
 * delivered.
 * @module
 */
import { createParser } from 'eventsource-parser';

/** The largest event buffered (characters of one line or one event's data): 64 Mi. */
export const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Yields each event's data from a byte stream.
 * @param body the response body
 * @param onBytes called for every chunk of bytes received (the inactivity timer)
 * @param maxEventChars the buffer limit
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onBytes?: () => void,
  maxEventChars = MAX_EVENT_CHARS,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let events: string[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (event) => void events.push(event.data),
    onError: (error) => {
      if (error.type !== 'max-buffer-size-exceeded') return; // unknown fields are ignored, as the spec says
      failure = new Error(`an event of the stream is over ${maxEventChars} characters`);
      failure.name = 'MalformedStream';
    },
  });
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (!done) onBytes?.();
      // The closing blank line delivers a last event the server did not end; it is harmless after a full one.
      parser.feed(done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true }));
      if (failure) throw failure;
      const ready = events;
      events = [];
      for (const data of ready) yield data;
      if (done) break;
    }
    finished = true;
  } finally {
    // A consumer that stops early (at `[DONE]`, on an error) releases the connection.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
