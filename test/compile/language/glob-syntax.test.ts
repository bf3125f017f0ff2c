// The glob tokenizer and matcher: their reading agrees with minimatch's, and a sample name always matches its glob.
import fc from 'fast-check';
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import {
  canMatch,
  matchGlob,
  sampleName,
  scanClass,
  tokenizeGlob,
} from '../../../src/compile/language/glob-syntax.js';
import { parseSelector } from '../../../src/compile/language/glob.js';
import { findCommonName } from '../../../src/compile/decide/glob-overlap.js';

const OPTIONS = { nobrace: true, noext: true, nonegate: true, nocomment: true, noglobstar: true, dot: true };
const SLASH = '\uffff';
const ANCHOR = '\ufffe';
/** minimatch itself, with the tool-name adjustments of glob.ts (`/` is a plain character, `.` a plain name). */
const reference = (pattern: string, name: string) =>
  name.length > 0 &&
  new Minimatch(ANCHOR + pattern.replaceAll('/', SLASH), OPTIONS).match(ANCHOR + name.replaceAll('/', SLASH));

const CLASSES = [
  '[ab]',
  '[!a]',
  '[^b]',
  '[a-c]',
  '[c-a]',
  '[]a]',
  '[!]]',
  '[a-]',
  '[\\]]',
  '[\\\\]',
  '[[:alpha:]]',
  '[[:digit:]_]',
  '[![:alpha:]]',
  '[[:graph:]]',
  '[^a[:graph:]]',
  '[a[:print:]]',
  '[[:punct:]]',
  '[[:foo:]]',
  '[a-[:digit:]]',
  '[é-ü]',
  '[😀-😂]',
  '[[]',
  '[',
  ']',
];
const piece = fc.constantFrom(
  ...CLASSES,
  'a',
  'b',
  'x',
  '_',
  '/',
  '.',
  '*',
  '?',
  '\\*',
  '\\[',
  '\\a',
  '-',
  ':',
  '!',
  '^',
  'é',
  '😀',
  '\\',
);
// No `/` in names: glob.ts maps it to a noncharacter for minimatch, which classes then judge (its own tests).
const char = fc.constantFrom(
  'a',
  'b',
  'c',
  'x',
  '_',
  '.',
  ']',
  '[',
  ':',
  '!',
  '-',
  'é',
  'ö',
  '😀',
  '😁',
  '1',
  ' ',
);

describe('tokenizeGlob', () => {
  it('reads POSIX classes whole, so `[[:alpha:]]_*` is a class, `_` and a star', () => {
    expect(tokenizeGlob('[[:alpha:]]_*').map((t) => t.kind)).toEqual(['class', 'literal', 'star']);
    expect(scanClass('[[:alpha:]]_*', 0)?.close).toBe(10);
  });

  it('reads an unclosed `[` and a final `\\` as literals, and merges `*` runs', () => {
    expect(tokenizeGlob('[ab')).toEqual([
      { kind: 'literal', text: '[', escaped: false },
      { kind: 'literal', text: 'a', escaped: false },
      { kind: 'literal', text: 'b', escaped: false },
    ]);
    expect(tokenizeGlob('a\\')).toEqual([
      { kind: 'literal', text: 'a', escaped: false },
      { kind: 'literal', text: '\\', escaped: false },
    ]);
    expect(tokenizeGlob('***').map((t) => t.kind)).toEqual(['star']);
  });

  it('marks classes that match nothing, which makes the whole pattern match nothing', () => {
    expect(canMatch(tokenizeGlob('x[b-a]'))).toBe(false);
    expect(canMatch(tokenizeGlob('[a-[:digit:]]'))).toBe(false);
    expect(canMatch(tokenizeGlob('[a-c]'))).toBe(true);
  });

  it('agrees with minimatch on every pattern and name (property)', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 5 }),
        fc.array(char, { minLength: 1, maxLength: 6 }),
        (pieces, chars) => {
          const pattern = pieces.join('');
          const name = chars.join('');
          expect(matchGlob(tokenizeGlob(pattern), name)).toBe(reference(pattern, name));
        },
      ),
      { numRuns: 4000 },
    );
  });
});

describe('sampleName', () => {
  it('builds a name each glob matches', () => {
    expect(sampleName('mcp__*')).toBe('mcp__x');
    expect(sampleName('mcp__*', 'q')).toBe('mcp__q');
    expect(sampleName('a?*c', 'q')).toBe('aqc');
    expect(sampleName('a?c')).toBe('axc');
    expect(sampleName('[ab]_tool')).toBe('a_tool');
    expect(sampleName('[!x]y')).toBe('yy');
    expect(sampleName('lit\\*')).toBe('lit*');
    expect(sampleName('open[')).toBe('open[');
  });

  it('samples a POSIX class with one of its characters (was `x]_x`, which does not match)', () => {
    const sample = sampleName('[[:alpha:]]_*');
    expect(sample).toBe('x_x');
    expect(parseSelector('[[:alpha:]]_*').alternatives[0]!.match(sample!)).toBe(true);
    expect(sampleName('[[:digit:]]')).toBe('0');
  });

  it('has no sample for a glob that matches nothing', () => {
    expect(sampleName('a[b-a]')).toBeUndefined();
  });

  it('matches its glob whenever the glob can match anything (property)', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
        const pattern = pieces.join('');
        const [alt] = parseSelector(pattern).alternatives;
        const sample = sampleName(pattern);
        if (canMatch(tokenizeGlob(pattern))) {
          expect(sample, pattern).toBeDefined();
          expect(alt!.match(sample!), `${pattern} ~ ${sample}`).toBe(true);
          expect(reference(pattern, sample!)).toBe(true);
        } else {
          expect(sample).toBeUndefined();
          for (const name of ['a', 'x', '[', 'x_x', '😀']) expect(alt!.match(name)).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('findCommonName on POSIX classes', () => {
  it('finds names through `[[:alpha:]]` with the matcher’s reading of the class', () => {
    const a = parseSelector('[[:alpha:]]_*').alternatives[0]!;
    const b = parseSelector('*_x').alternatives[0]!;
    const witness = findCommonName(a, b);
    expect(witness).toBeDefined();
    expect(a.match(witness!) && b.match(witness!)).toBe(true);
    // `[[:punct:]]` includes symbols such as `+` (minimatch reads it as \p{P} and \p{S}).
    const punct = parseSelector('[[:punct:]]').alternatives[0]!;
    expect(findCommonName(punct, parseSelector('+').alternatives[0]!)).toBe('+');
  });
});
