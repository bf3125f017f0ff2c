// Hostile inputs: each gives one clear diagnostic and never throws. Real files in a temp folder for the
// size cap and invalid UTF-8 (the loader refuses those before parsing).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicySources, loadPolicyText } from '../../../src/compile/api.js';
import { MAX_POLICY_BYTES, parsePolicyText } from '../../../src/compile/language/parse.js';

describe('hostile inputs', () => {
  it('refuses an alias bomb with alias-limit', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(
        `${cur}: &${cur} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
      );
    }
    lines.push('mode: x');
    const parsed = parsePolicyText(lines.join('\n'), 'bomb.yaml');
    expect(parsed.data).toBeUndefined();
    expect(parsed.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['alias-limit', 'policy expands too many aliases: the limit is 100'],
    ]);
  });

  it('refuses a 10 MB text with the size in the message', () => {
    const text = 'mode: x\nsection: "' + 'a'.repeat(10 * 1024 * 1024) + '"\n';
    const [d, ...rest] = loadPolicyText(text, 'big.yaml').diagnostics;
    expect(rest).toEqual([]);
    expect(d!.code).toBe('too-large');
    expect(d!.message).toBe(`policy is ${text.length} bytes: the limit is ${MAX_POLICY_BYTES} bytes (1 MiB)`);
  });

  it('counts bytes, not characters, against the size cap', () => {
    const text = 'mode: x\nsection: "' + 'é'.repeat(600 * 1024) + '"\n';
    expect(text.length).toBeLessThan(MAX_POLICY_BYTES);
    expect(loadPolicyText(text, null).diagnostics.map((d) => d.code)).toEqual(['too-large']);
  });

  it('refuses 10k-deep flow nesting with one too-deep diagnostic', () => {
    const text = 'mode: x\nsection: ' + '['.repeat(10_000) + ']'.repeat(10_000) + '\n';
    const ds = loadPolicyText(text, 'deep.yaml').diagnostics;
    expect(ds.map((d) => d.code)).toEqual(['too-deep']);
    expect(ds[0]!.message).toBe('policy nests too deeply: the limit is 64 levels');
  });

  it('refuses moderately deep block nesting that the parser accepts', () => {
    const text =
      'mode: x\n' + Array.from({ length: 100 }, (_, i) => ' '.repeat(i) + 'k:').join('\n') + ' 1\n';
    const ds = loadPolicyText(text, 'deep.yaml').diagnostics;
    expect(ds.map((d) => d.code)).toEqual(['too-deep']);
    expect(ds[0]!.range!.start.line).toBeGreaterThan(60);
  });

  it('treats `__proto__` and `constructor` selectors as plain keys', () => {
    const r = loadPolicyText(
      'mode: x\ntools:\n  __proto__: allow\n  constructor: ask\ndefault: deny\n',
      null,
    );
    expect(r.diagnostics).toEqual([]);
    const tools = r.documents[0]!.document.tools!;
    expect(Object.keys(tools)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
  });

  it('refuses binary garbage and NUL bytes with a syntax diagnostic at the byte', () => {
    const ds = loadPolicyText('mode: x\nsection: "a\u0000b"\n', 'nul.yaml').diagnostics;
    expect(ds.map((d) => [d.code, d.message, d.range!.start])).toEqual([
      [
        'syntax',
        'control character `\\x00` in policy text: this is not a YAML or JSON file',
        { line: 2, column: 12 },
      ],
    ]);
    let seed = 7;
    const garbage = Array.from({ length: 4096 }, () =>
      String.fromCharCode((seed = (seed * 48271) % 2147483647) % 256),
    ).join('');
    const g = loadPolicyText(garbage, 'garbage.bin');
    expect(g.documents).toEqual([]);
    expect(g.diagnostics.length).toBeGreaterThan(0);
    expect(g.diagnostics.every((d) => d.severity === 'error' && d.range)).toBe(true);
  });

  it('refuses files over the cap and invalid UTF-8 before parsing them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-hostile-'));
    await writeFile(join(dir, 'big.yaml'), Buffer.alloc(10 * 1024 * 1024, 0x61));
    await writeFile(join(dir, 'latin1.yaml'), Buffer.from([0x6d, 0x6f, 0x64, 0x65, 0x3a, 0x20, 0xe9, 0x0a]));
    const r = await loadPolicySources([dir], { builtin: false });
    expect(r.documents).toEqual([]);
    expect(r.diagnostics.map((d) => [d.file, d.code, d.message])).toEqual([
      [join(dir, 'big.yaml'), 'too-large', 'policy is 10485760 bytes: the limit is 1048576 bytes (1 MiB)'],
      [join(dir, 'latin1.yaml'), 'syntax', 'policy is not valid UTF-8 text'],
    ]);
  });

  it('survives a 10k-character key and a 10k-character decision with short messages', () => {
    const longKey = loadPolicyText(`mode: x\n${'k'.repeat(10_000)}: 1\n`, null).diagnostics;
    expect(longKey.map((d) => d.code)).toEqual(['syntax']);
    const longValue = loadPolicyText(`mode: x\ntools:\n  a: ${'z'.repeat(10_000)}\n`, null).diagnostics;
    expect(longValue.map((d) => d.code)).toEqual(['invalid-decision']);
    expect([...longKey, ...longValue].every((d) => d.message.length < 200)).toBe(true);
  });
});
