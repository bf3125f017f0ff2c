// editDistance and suggest: the did-you-mean of unknown keys and decisions.
import { describe, expect, it } from 'vitest';
import { editDistance, suggest } from '../../../src/compile/language/suggest.js';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions as one edit each', () => {
    expect(editDistance('tool', 'tools')).toBe(1);
    expect(editDistance('tools', 'tool')).toBe(1);
    expect(editDistance('alow', 'allow')).toBe(1);
    expect(editDistance('dney', 'deny')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('suggest', () => {
  it('prefers a case-insensitive match, then the nearest, then the first listed', () => {
    expect(suggest('readonly', ['readOnly', 'destructive'])).toEqual(['readOnly']);
    expect(suggest('defualt', ['default', 'description'])).toEqual(['default']);
    expect(suggest('ab', ['ax', 'ay'], 2)).toEqual(['ax', 'ay']);
  });

  it('suggests nothing far away, identical, or for huge words', () => {
    expect(suggest('zzzzzz', ['tools'])).toEqual([]);
    expect(suggest('tools', ['tools'])).toEqual([]);
    expect(suggest('t'.repeat(300), ['tools'])).toEqual([]);
  });
});
