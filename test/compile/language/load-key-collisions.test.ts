/**
 * Keys that collide once stringified: YAML keys that are not strings become strings when the data is built
 * (`true` → "true", `0x10` → "16", `null` → ""), so `true: allow` and `"true": deny` in one mapping would collapse
 * into one key, the last in the file winning: a decision that depends on key order and a narrowing rule that can
 * silently vanish. Such a collision refuses the file with a precise error, as duplicate keys do.
 * (Known gap: a list or mapping used as a key inside `tools` still becomes a stringified glob, `? [write]` → the
 * class `[ write ]`.)
 */
import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../../src/compile/language/load.js';

const refused = (text: string) => {
  const { documents, diagnostics } = loadPolicyText(text, 'p.yaml');
  expect(documents).toEqual([]);
  return diagnostics.map((d) => [d.code, d.range?.start.line, d.range?.start.column, d.message]);
};

describe('keys that collide once stringified, or are not names at all', () => {
  it('`true` and `"true"` in one mapping are duplicate keys, in either order', () => {
    expect(refused('mode: x\ntools:\n  "true": deny\n  true: allow\n')).toEqual([
      ['duplicate-key', 4, 3, 'duplicate key `true` (`"true"` and `true` are the same key once read)'],
    ]);
    expect(refused('mode: x\ntools:\n  true: allow\n  "true": deny\n')[0]?.[0]).toBe('duplicate-key');
    expect(refused('mode: x\ntools:\n  0x10: allow\n  "16": deny\n')[0]?.[0]).toBe('duplicate-key');
  });

  it('plain keys, quoted or not, still load', () => {
    const { documents, diagnostics } = loadPolicyText(
      'mode: x\ntools:\n  write: deny\n  "read": allow\n',
      'p.yaml',
    );
    expect(diagnostics).toEqual([]);
    expect(documents).toHaveLength(1);
  });
});
