/**
 * `too-many-alternatives`: a selector whose braces expand to more than 64 alternatives. The compiler still
 * expands it (up to 1,024, beyond which the file is refused), so the rule decides what it names, but such a
 * selector is slow to compile and hard to review.
 * @module
 */
import { expandBraces, MAX_BRACE_ALTERNATIVES } from '../glob.js';
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
      // Without braces there is one alternative: only selectors with braces are expanded again.
      if (!rule.selector.includes('{') || expandBraces(rule.selector) !== undefined) continue;
      report({
        messageId: 'tooMany',
        data: { selector: rule.selector, max: MAX_BRACE_ALTERNATIVES },
        path: rule.path,
      });
    }
  },
});
