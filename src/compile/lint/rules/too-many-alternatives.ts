/**
 * `too-many-alternatives`: a selector whose braces expand to more than 64 alternatives. The compiler still
 * expands it (up to 1,024, beyond which the file is refused), so the rule decides what it names, but such a
 * selector is slow to compile and hard to review.
 * @module
 */
import { expandBraces, MAX_BRACE_ALTERNATIVES } from '../../language/glob.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'too-many-alternatives',
  meta: {
    description: 'a selector expands into more than 64 brace alternatives',
    severity: 'error',
    messages: {
      tooMany: {
        text: 'selector `{{selector}}` expands to more than {{max}} alternatives',
        help: 'split it into several selectors, or use `*` or a `[...]` class instead of long brace lists',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": deny\n',
      passing: 'mode: review\ntools:\n  "[ab][ab][ab][ab][ab][ab][ab]": deny\n',
      fix: 'Replace nested brace groups with character classes or `*`, or write several selectors.',
    },
  },
  check(context, report) {
    for (const rule of context.selectors()) {
      if (!mayExceed(rule.selector) || expandBraces(rule.selector) !== undefined) continue;
      report({
        messageId: 'tooMany',
        data: { selector: rule.selector, max: MAX_BRACE_ALTERNATIVES },
        path: rule.path,
      });
    }
  },
});

/** 2^6: a selector with at most this many commas expands to at most {@link MAX_BRACE_ALTERNATIVES} alternatives. */
const MAX_SAFE_COMMAS = Math.floor(Math.log2(MAX_BRACE_ALTERNATIVES));

/**
 * Whether a selector could expand to more alternatives than the limit, without expanding it. Without braces it is
 * one alternative. A group of k commas makes k + 1 ≤ 2^k strings, each with k fewer commas, so a selector of c
 * commas expands to at most 2^c: few commas cannot exceed the limit (most brace selectors are expanded once only,
 * by the compiler).
 * @returns false when the selector certainly stays within the limit
 */
function mayExceed(selector: string): boolean {
  if (!selector.includes('{')) return false;
  let commas = 0;
  for (let i = 0; i < selector.length; i++)
    if (selector.charCodeAt(i) === 44 && ++commas > MAX_SAFE_COMMAS) return true;
  return false;
}
