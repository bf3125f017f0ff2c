/**
 * `PrefixIndex` answers from keys given in any order, keeps the given order of values under equal keys, and orders
 * keys as `<` does (UTF-16 code units), whichever question it is asked first.
 */
import { describe, expect, it } from 'vitest';
import { PrefixIndex } from '../../src/compile/prefix-index.js';

const KEYS = ['mcp__b', 'mcp__', 'a', 'mcp__a', '', 'mcp__', 'Z', 'mcp', '\u00e9', 'mcp__a', ''];
const VALUES = KEYS.map((k, i) => `${k}#${i}`);

/** The reference: every value whose key satisfies `keep`, by key (`<`), then by given position. */
function reference(keep: (key: string) => boolean): string[] {
  return KEYS.map((key, i) => ({ key, i }))
    .filter(({ key }) => keep(key))
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.i - y.i))
    .map(({ i }) => VALUES[i]!);
}

describe('PrefixIndex', () => {
  it('lists the values whose key starts with a prefix, in key order, equal keys in given order', () => {
    for (const prefix of ['', 'mcp', 'mcp__', 'mcp__a', 'a', 'Z', 'q', '\u00e9']) {
      const index = new PrefixIndex(KEYS, VALUES);
      expect(index.startingWith(prefix)).toEqual(reference((k) => k.startsWith(prefix)));
    }
  });

  it('lists the values whose key is a proper prefix of a text, first asked or after a range', () => {
    for (const first of ['properPrefixesOf', 'startingWith'] as const) {
      const index = new PrefixIndex(KEYS, VALUES);
      if (first === 'startingWith') index.startingWith('mcp');
      const expected = KEYS.map((key, i) => ({ key, i }))
        .filter(({ key }) => key.length < 6 && 'mcp__a'.startsWith(key))
        .sort((x, y) => x.key.length - y.key.length || x.i - y.i)
        .map(({ i }) => VALUES[i]!);
      expect(index.properPrefixesOf('mcp__a')).toEqual(expected);
      expect(expected).toEqual(['#4', '#10', 'mcp#7', 'mcp__#1', 'mcp__#5']);
    }
  });

  it('answers compatibleWith as the proper prefixes followed by the keys that start with it', () => {
    const index = new PrefixIndex(KEYS, VALUES);
    const got = index.compatibleWith('mcp__');
    const shorter = index.properPrefixesOf('mcp__');
    expect(got).toEqual([...shorter, ...index.startingWith('mcp__')]);
    expect(got).toContain('mcp#7');
    expect(got).toContain('mcp__b#0');
    expect(got).not.toContain('a#2');
  });

  it('answers the same when it makes its values from positions, making only the values it returns', () => {
    const made: number[] = [];
    const lazy = new PrefixIndex(KEYS, (i) => (made.push(i), VALUES[i]!));
    const given = new PrefixIndex(KEYS, VALUES);
    expect(lazy.startingWith('mcp__')).toEqual(given.startingWith('mcp__'));
    expect([...made].sort((a, b) => a - b)).toEqual([0, 1, 3, 5, 9]);
    expect(lazy.compatibleWith('mcp__a')).toEqual(given.compatibleWith('mcp__a'));
    expect(lazy.properPrefixesOf('mcp')).toEqual(given.properPrefixesOf('mcp'));
    expect(lazy.startingWith('')).toEqual(given.startingWith(''));
  });

  it('answers the same for a document of many keys (grouped by first character) as for few', () => {
    const keys = Array.from(
      { length: 300 },
      (_, i) => ['mcp__', 'mcp__gh__', 'read', 'r', ''][i % 5]! + (i % 7),
    );
    const values = keys.map((k, i) => `${k}#${i}`);
    const index = new PrefixIndex(keys, values);
    for (const prefix of ['mcp__', 'mcp__gh__3', 'r', 'read1', 'x', '']) {
      const expected = keys
        .map((key, i) => ({ key, i }))
        .filter(({ key }) => key.startsWith(prefix))
        .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.i - y.i))
        .map(({ i }) => values[i]!);
      expect(index.startingWith(prefix)).toEqual(expected);
      const proper = keys
        .map((key, i) => ({ key, i }))
        .filter(({ key }) => key.length < prefix.length && prefix.startsWith(key))
        .sort((x, y) => x.key.length - y.key.length || x.i - y.i)
        .map(({ i }) => values[i]!);
      expect(index.properPrefixesOf(prefix)).toEqual(proper);
    }
  });

  it('answers a run of questions on one small index as on fresh ones (the first scans, later ones group)', () => {
    const prefixes = ['mcp__', 'a', '', 'mcp', 'q', 'mcp__a', '\u00e9', 'mcp__b', 'Z', 'mcp__'];
    const index = new PrefixIndex(KEYS, VALUES);
    for (const prefix of prefixes) {
      expect(index.startingWith(prefix)).toEqual(reference((k) => k.startsWith(prefix)));
      expect(index.properPrefixesOf(prefix)).toEqual(new PrefixIndex(KEYS, VALUES).properPrefixesOf(prefix));
      expect(index.compatibleWith(prefix)).toEqual(new PrefixIndex(KEYS, VALUES).compatibleWith(prefix));
    }
  });

  it('answers every question as the reference does, in any order, for keys sharing long prefixes', () => {
    // A small alphabet makes many keys prefixes of others, equal keys, and the empty key.
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const word = () => Array.from({ length: random(5) }, () => 'ab_'[random(3)]).join('');
    for (const size of [3, 40, 200]) {
      const keys = Array.from({ length: size }, word);
      const values = keys.map((k, i) => `${k}#${i}`);
      const byKey = (keep: (key: string) => boolean) =>
        keys
          .map((key, i) => ({ key, i }))
          .filter(({ key }) => keep(key))
          .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.i - y.i))
          .map(({ i }) => values[i]!);
      const byLength = (text: string) =>
        keys
          .map((key, i) => ({ key, i }))
          .filter(({ key }) => key.length < text.length && text.startsWith(key))
          .sort((x, y) => x.key.length - y.key.length || x.i - y.i)
          .map(({ i }) => values[i]!);
      const index = new PrefixIndex(keys, values);
      for (let q = 0; q < 60; q++) {
        const text = word();
        const kind = random(3);
        if (kind === 0) expect(index.startingWith(text), text).toEqual(byKey((k) => k.startsWith(text)));
        else if (kind === 1) expect(index.properPrefixesOf(text), text).toEqual(byLength(text));
        else
          expect(index.compatibleWith(text), text).toEqual([
            ...byLength(text),
            ...byKey((k) => k.startsWith(text)),
          ]);
      }
    }
  });

  it('leaves the arrays it was given as they were', () => {
    const keys = [...KEYS];
    const values = [...VALUES];
    new PrefixIndex(keys, values).startingWith('');
    expect(keys).toEqual(KEYS);
    expect(values).toEqual(VALUES);
  });
  it('says whether some key starts another, as a check of every pair does', () => {
    const pair = (keys: string[]) => keys.some((a, i) => keys.some((b, j) => i !== j && b.startsWith(a)));
    const cases = [
      [],
      ['mcp__a__'],
      ['mcp__a__', 'mcp__b__', 'mcp__c1__', 'mcp__c2__'],
      ['mcp__a__', 'mcp__a__'],
      ['mcp__b__', 'x', 'mcp__'],
      ['', 'a'],
      ['b', 'ab', 'a\u00e9', 'a'],
      KEYS,
    ];
    for (const keys of cases) {
      const index = new PrefixIndex(keys, keys);
      expect(index.hasCompatiblePair()).toBe(pair(keys));
      // The same answer after other questions.
      index.compatibleWith(keys[0] ?? '');
      expect(index.hasCompatiblePair()).toBe(pair(keys));
    }
  });
});
