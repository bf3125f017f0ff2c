/**
 * The bounded ACP wire (src/apps/acp/nd-json.ts) over real web streams with small limits, and the id sniffer it
 * uses for lines too long to parse.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { IdSniffer } from '../../../src/apps/acp/id-sniffer.js';
import { boundedNdJsonStream } from '../../../src/apps/acp/nd-json.js';
import { visible } from '../../../src/apps/visible.js';

function sniff(line: string, split = 3): acp.JsonRpcId | undefined {
  const sniffer = new IdSniffer();
  const bytes = Buffer.from(line);
  // Fed in pieces: a key, a string or the id may straddle two chunks.
  for (let i = 0; i < bytes.length; i += split) sniffer.push(bytes.subarray(i, i + split));
  return sniffer.id();
}

describe('IdSniffer', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x"}', 7],
    ['{"method":"x","params":{"id":1,"a":[{"id":2}]},"id":"late, \\"quoted\\" }"}', 'late, "quoted" }'],
    ['{ "id" : -3.5 , "method":"x"}', -3.5],
    ['{"id":null,"method":"x"}', null],
    ['{"idx":1,"method":"x","params":{"id":4}}', undefined],
    ['{"method":"x","params":"\\"id\\":5"}', undefined],
    ['{"id":{"nested":1}}', undefined],
    ['[{"id":1}]', undefined],
    ['"id":1', undefined],
    ['{"id":12', 12],
  ])('reads the top-level id of %s', (line, id) => {
    expect(sniff(line)).toEqual(id);
    expect(sniff(line, 1)).toEqual(id);
  });

  it('gives up on an id value over 1 KiB', () => {
    expect(sniff(`{"id":"${'a'.repeat(2000)}","method":"x"}`)).toBeUndefined();
  });
});

/** A wire with small limits over in-memory byte streams. */
function wire(limits: { maxLineBytes: number; maxMessageBytes: number }) {
  const written: string[] = [];
  const logged: string[] = [];
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const output = new WritableStream<Uint8Array>({
    write: (bytes) => void written.push(...Buffer.from(bytes).toString('utf8').split('\n').filter(Boolean)),
  });
  const { stream, failure } = boundedNdJsonStream(output, input, (line) => logged.push(line), limits);
  const reader = stream.readable.getReader();
  const writer = stream.writable.getWriter();
  return {
    written: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
    logged,
    failure,
    reader,
    writer,
    send: (text: string) => feed.enqueue(Buffer.from(text)),
    fail: (error: Error) => feed.error(error),
  };
}

describe('boundedNdJsonStream', () => {
  it('passes lines within the limit, answers longer ones for their id and reads on', async () => {
    const w = wire({ maxLineBytes: 100, maxMessageBytes: 1000 });
    w.send('{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","id":2,"method":"b","params":"');
    w.send(`${'x'.repeat(500)}"}\n{"jsonrpc":"2.0","id":3,"method":"c"}\n`);
    expect((await w.reader.read()).value).toMatchObject({ id: 1 });
    expect((await w.reader.read()).value).toMatchObject({ id: 3 });
    expect(w.written()).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32600,
          message: expect.stringMatching(/^the message is 5\d\d bytes, over the 100-byte/),
        },
      },
    ]);
    expect(w.failure()).toBeNull();
  });

  it('never writes an oversized message: a response becomes an error, a request is answered locally', async () => {
    const w = wire({ maxLineBytes: 1000, maxMessageBytes: 200 });
    const big = 'y'.repeat(300);
    await w.writer.write({ jsonrpc: '2.0', id: 9, result: { big } });
    await w.writer.write({ jsonrpc: '2.0', method: 'session/update', params: { big } });
    await w.writer.write({ jsonrpc: '2.0', id: 0, method: 'session/request_permission', params: { big } });
    await w.writer.write({ jsonrpc: '2.0', id: 10, result: { small: true } });
    expect(w.written()).toEqual([
      { jsonrpc: '2.0', id: 9, error: { code: -32603, message: expect.stringMatching(/^the response/) } },
      { jsonrpc: '2.0', id: 10, result: { small: true } },
    ]);
    expect((await w.reader.read()).value).toMatchObject({ id: 0, error: { code: -32603 } });
    expect(w.logged).toHaveLength(3);
  });

  it('answers parse errors, batches and non-objects with id null, like the SDK', async () => {
    const w = wire({ maxLineBytes: 1000, maxMessageBytes: 1000 });
    w.send('{oops}\n[1]\n42\n\n');
    w.send('{"jsonrpc":"2.0","id":1,"method":"a"}\n');
    expect((await w.reader.read()).value).toMatchObject({ id: 1 });
    expect(w.written().map((m) => [m.id, (m.error as { code: number }).code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
    ]);
  });

  it('records a failing input', async () => {
    const w = wire({ maxLineBytes: 1000, maxMessageBytes: 1000 });
    w.fail(new Error('EIO: i/o error'));
    await expect(w.reader.read()).rejects.toThrow('EIO');
    expect(w.failure()?.message).toBe('EIO: i/o error');
  });
});

describe('visible', () => {
  it('spells out control, bidi, zero-width and separator characters; newline and tab pass in a block', () => {
    expect(visible('a\u202eb\u200bc\u2028d\u001be\u0085f\ufeff\u{e0041}\ud800\n\t')).toBe(
      'a\\u202eb\\u200bc\\u2028d\\x1be\\x85f\\ufeff\\u{e0041}\\ud800\n\t',
    );
    expect(visible('a\nb\tc\r', 'line')).toBe('a\\x0ab\\x09c\\x0d');
    expect(visible('plain ✓ text — 😀 é')).toBe('plain ✓ text — 😀 é');
  });
});
