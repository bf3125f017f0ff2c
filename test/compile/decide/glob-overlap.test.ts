/**
 * `findCommonName`: witnesses for overlapping globs, checked against the real selector matchers (`glob.ts`).
 * A property test brute-forces every short name over a small alphabet and checks the search is exact there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exampleNames, findCommonName } from '../../../src/compile/decide/glob-overlap.js';
import { parseSelector } from '../../../src/compile/language/glob.js';

const alt = (pattern: string) => parseSelector(pattern).alternatives[0]!;

describe('findCommonName', () => {
  it.each([
    ['mcp__*', '*_read', 'mcp__read'],
    ['a*', '*b', 'ab'],
    ['t[a-m]', 't[k-z]', 'tk'],
    ['web_?', '*_x', 'web_x'],
    ['a/*', '*.b', 'a/.b'],
    ['[!a]x', '?x', 'xx'],
  ])('finds a name both `%s` and `%s` match', (a, b, witness) => {
    expect(findCommonName(alt(a), alt(b))).toBe(witness);
  });

  it.each([
    ['mcp__*', 'web_*'],
    ['t[ab]', 't[cd]'],
    ['a?', 'a'],
    ['*x', '*y'],
    ['[[:digit:]]', 'a'],
  ])('finds none for `%s` and `%s`', (a, b) => {
    expect(findCommonName(alt(a), alt(b))).toBeUndefined();
  });

  it('is exact on short names over a small alphabet', () => {
    const token = fc.constantFrom('a', 'b', '_', '*', '?', '[ab]', '[!a]');
    const pattern = fc.array(token, { minLength: 1, maxLength: 4 }).map((t) => t.join(''));
    const names = ['', ...allStrings('ab_', 6)];
    fc.assert(
      fc.property(pattern, pattern, (p, q) => {
        const a = alt(p);
        const b = alt(q);
        const witness = findCommonName(a, b);
        if (witness !== undefined) return a.match(witness) && b.match(witness);
        return !names.some((n) => a.match(n) && b.match(n));
      }),
      { numRuns: 300 },
    );
  });
});

describe('exampleNames', () => {
  it('spells the literal skeleton with and without star content', () => {
    expect(exampleNames('mcp__*')).toEqual(['mcp__', 'mcp__x']);
    expect(exampleNames('a\\*b')).toEqual(['a*b']);
  });

  it('spells a pattern of literals and stars as removing, then filling, each run of stars', () => {
    for (const pattern of ['*', '**', 'a', 'mcp__*', '*_read', 'a**b*c', '*a*', 'x***', '***y**z']) {
      const skeletons = [pattern.replace(/\*+/g, ''), pattern.replace(/\*+/g, 'x')];
      expect(exampleNames(pattern)).toEqual([...new Set(skeletons)]);
    }
  });
});

function allStrings(alphabet: string, max: number): string[] {
  const out: string[] = [];
  let layer = [''];
  for (let n = 1; n <= max; n++) {
    layer = layer.flatMap((s) => [...alphabet].map((c) => s + c));
    out.push(...layer);
  }
  return out;
}
