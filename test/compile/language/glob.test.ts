// parseSelector: minimatch over plain tool names, our brace expansion, specificity.
import fc from 'fast-check';
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { MAX_BRACE_ALTERNATIVES } from '../../../src/compile/language/glob.js';
import { countLiterals, expandBraces, parseSelector } from '../../../src/compile/language/glob.js';

const matches = (selector: string, name: string) =>
  parseSelector(selector).alternatives.some((a) => a.match(name));

describe('parseSelector', () => {
  it('treats names without glob syntax as exact names', () => {
    const [a, ...rest] = parseSelector('web_fetch').alternatives;
    expect(rest).toEqual([]);
    expect(a).toMatchObject({ pattern: 'web_fetch', isGlob: false, name: 'web_fetch', specificity: 9 });
    expect(a!.match('web_fetch')).toBe(true);
    expect(a!.match('web_fetchx')).toBe(false);
  });

  it('matches `*` across `/` and `.`, and leading dots', () => {
    expect(matches('web_*', 'web_a/b.c')).toBe(true);
    expect(matches('*', '.hidden')).toBe(true);
    expect(matches('a/*', 'a/b/c')).toBe(true);
    expect(matches('a/b', 'a/b')).toBe(true);
    expect(matches('**', 'x/y')).toBe(true);
    expect(matches('*', '.')).toBe(true);
    expect(matches('?', '.')).toBe(true);
  });

  it('is case-sensitive and anchored', () => {
    expect(matches('Read*', 'read')).toBe(false);
    expect(matches('ead*', 'read')).toBe(false);
    expect(matches('mcp__*', 'mcp__gh__list')).toBe(true);
  });

  it('supports `?` and classes, and gives no meaning to `!`, `#` or extglobs', () => {
    expect(matches('t?ol', 'tool')).toBe(true);
    expect(matches('[rw]ead', 'read')).toBe(true);
    expect(matches('[!r]ead', 'read')).toBe(false);
    expect(matches('!write', 'read')).toBe(false);
    expect(matches('!write', '!write')).toBe(true);
    expect(matches('#x', '#x')).toBe(true);
    expect(matches('+(a|b)', 'a')).toBe(false);
  });

  it('reads escaped characters literally and counts them', () => {
    const [a] = parseSelector('a\\*b').alternatives;
    expect(a).toMatchObject({ isGlob: false, name: 'a*b', specificity: 3 });
    expect(a!.match('a*b')).toBe(true);
    expect(a!.match('axb')).toBe(false);
  });

  it('expands braces into alternatives with their own specificity', () => {
    const alts = parseSelector('mcp__{gh,fs}__*').alternatives;
    expect(alts.map((a) => [a.pattern, a.specificity, a.isGlob])).toEqual([
      ['mcp__gh__*', 9, true],
      ['mcp__fs__*', 9, true],
    ]);
    expect(parseSelector('{read,list}').alternatives.map((a) => [a.name, a.isGlob])).toEqual([
      ['read', false],
      ['list', false],
    ]);
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('{a}')).toEqual(['{a}']);
    expect(expandBraces('[{]x,y}')).toEqual(['[{]x,y}']);
    expect(expandBraces('\\{a,b}')).toEqual(['\\{a,b}']);
    expect(expandBraces('{a,a}')).toEqual(['a']);
  });

  it('reports more than 64 alternatives but keeps them, and gives up beyond 1,024', () => {
    const ok = parseSelector('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}');
    expect(ok.alternatives).toHaveLength(MAX_BRACE_ALTERNATIVES);
    expect(ok.error).toBeUndefined();
    // A lint error, but the rule still decides what it names: dropping it would fail open.
    const many = parseSelector('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}');
    expect(many.error).toBe('braces expand to more than 64 alternatives');
    expect(many.alternatives).toHaveLength(128);
    expect(many.alternatives.some((a) => a.match('acegikm'))).toBe(true);
    // Beyond what the compiler expands (the loader refuses such a file): counted, never expanded.
    const bomb = parseSelector('{a,b}'.repeat(50));
    expect(bomb.error).toBe('braces expand to more than 1024 alternatives');
    expect(bomb.alternatives).toEqual([]);
    expect(parseSelector('{a,a}'.repeat(50)).error).toBeDefined();
  });

  it('reports invalid syntax without throwing', () => {
    expect(parseSelector('').error).toBe('empty selector');
    expect(parseSelector('[ab').error).toBe('unclosed `[` at column 1');
    expect(parseSelector('a{b').error).toBe('unclosed `{`');
    expect(parseSelector('a}b').error).toBe('unmatched `}` at column 2');
    expect(parseSelector('ab\\').error).toBe('selector ends with a lone `\\`');
    expect(parseSelector('x'.repeat(70_000)).error).toMatch(/^selector is 70000 characters/);
    // What minimatch still makes of it is kept: an unclosed class is literal.
    expect(matches('[ab', '[ab')).toBe(true);
  });
});

describe('countLiterals', () => {
  it('counts literal characters only', () => {
    expect(countLiterals('web_*')).toBe(4);
    expect(countLiterals('*')).toBe(0);
    expect(countLiterals('**')).toBe(0);
    expect(countLiterals('?')).toBe(0);
    expect(countLiterals('[abc]')).toBe(0);
    expect(countLiterals('[]a]x')).toBe(1);
    expect(countLiterals('[[:alpha:]]x')).toBe(1);
    expect(countLiterals('\\*\\?')).toBe(2);
    expect(countLiterals('[ab')).toBe(3);
  });
});

describe('parseSelector: the literal pre-filter agrees with minimatch', () => {
  it('matches names around escaped and class characters', () => {
    expect(matches('a\\*b*', 'a*bc')).toBe(true);
    expect(matches('a\\*b*', 'axbc')).toBe(false);
    expect(matches('*_danger', 'x_danger')).toBe(true);
    expect(matches('*_danger', '_dange')).toBe(false);
    expect(matches('mcp__*__read_*', 'mcp__gh__read_x')).toBe(true);
    expect(matches('mcp__*__read_*', 'mcp__gh__write_x')).toBe(false);
    expect(matches('a[bc]d*e', 'acdxe')).toBe(true);
    expect(matches('a[bc]d*e', 'acdx')).toBe(false);
    expect(matches('[ab', '[abx')).toBe(false);
  });
});

describe('parseSelector agrees with minimatch (property)', () => {
  const OPTIONS = {
    nobrace: true,
    noext: true,
    nonegate: true,
    nocomment: true,
    noglobstar: true,
    dot: true,
  };
  const SLASH = '\uffff';
  const reference = (pattern: string, name: string) =>
    name.length > 0 &&
    new Minimatch(pattern.replaceAll('/', SLASH), OPTIONS).match(name.replaceAll('/', SLASH));

  it('on patterns of `*`, `?`, escapes, classes and awkward characters', () => {
    const piece = fc.constantFrom(
      'a',
      'b',
      '/',
      '.',
      '*',
      '?',
      '\\*',
      '\\?',
      '\\a',
      '-',
      '$',
      '(',
      '|',
      '😀',
      'é',
      '[ab]',
      '[!a]',
      '^',
      '+',
    );
    const char = fc.constantFrom('a', 'b', '/', '.', '*', '?', '-', '$', '(', '|', '😀', 'é', '^', '+', '\\');
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 6 }),
        fc.array(char, { maxLength: 8 }),
        (pieces, chars) => {
          const pattern = pieces.join('');
          const name = chars.join('');
          // minimatch never lets `*`/`?` match the path segments `.` and `..`; tool names are not paths.
          fc.pre(name !== '.' && name !== '..');
          const ours = parseSelector(pattern).alternatives.some((a) => a.match(name));
          expect(ours).toBe(reference(pattern, name));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('parseSelector: a valid selector has an alternative', () => {
  // Lint reads a document's selectors off its compiled rules (lint-context.ts `readSelectors`), which holds only if
  // every selector without an error compiles to at least one rule.
  it('never answers no alternatives without an error, over generated selectors', () => {
    const char = fc.constantFrom('{', '}', ',', '*', '?', '[', ']', '!', '\\', 'a', 'b', '_', '-', ' ', '.');
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 12 }), (chars) => {
        const parsed = parseSelector(chars.join(''));
        expect(parsed.error !== undefined || parsed.alternatives.length > 0).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    for (const selector of ['{}', '{,}', 'a{}b', '{{}}', '{a,{}}', '\\{\\}'])
      expect(parseSelector(selector).alternatives.length).toBeGreaterThan(0);
  });
});
