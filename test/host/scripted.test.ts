/**
 * The scripted model and its script files (real files in a temporary folder): entries in order, batches of
 * calls, streamed chunks, running out, recorded requests, and parse errors with file:line:column.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chunkText,
  loadScript,
  parseScript,
  scriptedModel,
  type ModelRequest,
} from '../../src/host/index.js';
import { tempDir } from './setup.js';

const request: ModelRequest = {
  header: { system: 's', tools: [] },
  messages: [{ role: 'user', content: 'hi' }],
};

describe('scriptedModel()', () => {
  it('answers one entry per request, a batch of calls per entry, streaming the text', async () => {
    const model = scriptedModel([
      {
        text: 'Looking first.',
        tool_calls: [{ name: 'read', arguments: { path: 'README.md' } }, { name: 'list' }],
      },
      { text: 'Done.' },
    ]);
    const chunks: string[] = [];
    expect(await model.complete(request, (chunk) => chunks.push(chunk.text))).toEqual({
      text: 'Looking first.',
      toolCalls: [
        { name: 'read', arguments: { path: 'README.md' } },
        { name: 'list', arguments: {} },
      ],
    });
    expect(chunks.join('')).toBe('Looking first.');
    expect(chunks.length).toBeGreaterThan(1);
    expect(await model.complete(request)).toEqual({ text: 'Done.', toolCalls: [] });
    await expect(model.complete(request)).rejects.toThrow(
      'the script has no entry for request 3 (it has 2 entries)',
    );
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]).toEqual({ header: request.header, messages: request.messages });
  });

  it('answers with copies, as structuredClone makes them, whatever the arguments hold', async () => {
    const when = new Date(0);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const poisoned = JSON.parse('{"__proto__": {"x": 1}, "y": [1, 2]}') as Record<string, unknown>;
    const sparse = [1, , 3];
    const deep: Record<string, unknown> = {};
    let cursor = deep;
    for (let i = 0; i < 100; i++) cursor = (cursor.next = {}) as Record<string, unknown>;
    const args = [{ path: 'a', list: [1, { b: null }] }, { when }, cyclic, poisoned, { sparse }, deep];
    const entry = { text: 'x', tool_calls: args.map((a) => ({ name: 'read', arguments: a })) };
    const model = scriptedModel([entry, entry]);
    (args[0]!.list as unknown[]).push('changed after the script was made');
    for (const round of [1, 2]) {
      const { toolCalls } = await model.complete(request);
      const got = toolCalls.map((call) => call.arguments as Record<string, unknown>);
      const expected = [{ path: 'a', list: [1, { b: null }] }, ...args.slice(1)].map((a) =>
        structuredClone(a),
      );
      expect(got).toEqual(expected);
      for (const [i, value] of got.entries()) expect(value).not.toBe(args[i]);
      expect(got[1]!.when).toBeInstanceOf(Date);
      expect((got[2]!.self as Record<string, unknown>).self).toBe(got[2]!.self);
      expect(Object.getPrototypeOf(got[3])).toBe(Object.prototype);
      expect(Object.keys(got[3]!)).toEqual(['__proto__', 'y']);
      expect(1 in (got[4]!.sparse as unknown[])).toBe(false);
      got[0]!.path = `mutated by round ${round}`;
    }
  });

  it('chunks text on word boundaries without losing characters', () => {
    expect(chunkText('one two three four five').join('')).toBe('one two three four five');
    expect(chunkText('')).toEqual([]);
  });
});

describe('loadScript()', () => {
  it('reads YAML and JSON scripts', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 's.yaml'),
      '- text: Looking first.\n  tool_calls:\n    - name: read\n      arguments: {path: README.md}\n- text: Done.\n',
    );
    writeFileSync(join(dir, 's.json'), '[{"text":"Done."}]');
    expect(loadScript(join(dir, 's.yaml'))).toEqual([
      { text: 'Looking first.', tool_calls: [{ name: 'read', arguments: { path: 'README.md' } }] },
      { text: 'Done.' },
    ]);
    expect(loadScript(join(dir, 's.json'))).toEqual([{ text: 'Done.' }]);
  });

  it('names file:line:column for syntax errors and wrong shapes', () => {
    expect(() => parseScript('- text: [unclosed\n', 'a.yaml')).toThrow(/^a\.yaml:\d+:\d+: /);
    expect(() => parseScript('text: x\n', 'b.yaml')).toThrow('b.yaml:1:1: a script is a list of entries');
    expect(() => parseScript('- text: ok\n- txt: typo\n', 'c.yaml')).toThrow(
      'c.yaml:2:3: unknown key `txt` (use text, tool_calls)',
    );
    expect(() => parseScript('- tool_calls:\n    - arguments: {}\n', 'd.yaml')).toThrow(
      /^d\.yaml:2:7: a tool call needs a string name/,
    );
    expect(() => parseScript('- tool_calls:\n    - name: x\n      arguments: [1]\n', 'e.yaml')).toThrow(
      'e.yaml:3:18: arguments must be a mapping',
    );
    expect(() => parseScript('- {}\n', 'f.yaml')).toThrow('f.yaml:1:3: entry 1 needs text or tool_calls');
    expect(() => parseScript('- text: a\n  text: b\n', 'g.yaml')).toThrow(/^g\.yaml:2:3: /);
  });
});
