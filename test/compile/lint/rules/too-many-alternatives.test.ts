import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandBraces, MAX_BRACE_ALTERNATIVES } from '../../../../src/compile/language/glob.js';
import rule from '../../../../src/compile/lint/rules/too-many-alternatives.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: '64 alternatives', policy: 'mode: review\ntools:\n  "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": deny\n' },
    { name: 'invalid glob is another rule', policy: 'mode: review\ntools:\n  "{a,b": deny\n' },
    { name: '6 commas, nested', policy: 'mode: review\ntools:\n  "{a,{b,{c,{d,{e,{f,g}}}}}}": deny\n' },
  ],
  invalid: [
    {
      name: '128 alternatives',
      policy: 'mode: review\ntools:\n  read: allow\n  "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": deny\n',
      errors: [
        {
          messageId: 'tooMany',
          line: 4,
          column: 3,
          message: 'selector `{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}` expands to more than 64 alternatives',
        },
      ],
    },
  ],
});

// The rule expands again only selectors of more than 6 commas: any selector with at most 6 commas, however its
// braces, escapes and classes nest, must expand to at most 64 alternatives.
describe('the comma bound', () => {
  it('no selector of at most 6 commas expands past 64 alternatives', () => {
    const piece = fc.constantFrom('{', '}', ',', 'a', 'b', '\\', '[', ']', '*', '{a,b}', '{,}');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const selector = pieces.join('');
        fc.pre([...selector].filter((c) => c === ',').length <= 6);
        expect(expandBraces(selector, MAX_BRACE_ALTERNATIVES)).not.toBeUndefined();
      }),
      { numRuns: 2000 },
    );
    expect(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}', MAX_BRACE_ALTERNATIVES)).toHaveLength(64);
  });
});
