/**
 * `invalid-glob`: a selector whose glob syntax is broken (an unclosed `[` or `{`, a stray `}`, a final `\`).
 * minimatch would read such a pattern as literal text and silently match nothing the author meant.
 * @module
 */
import { expandBraces } from '../../language/glob.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'invalid-glob',
  meta: {
    description: 'a selector is not a valid glob',
    severity: 'error',
    messages: {
      invalid: {
        text: 'selector `{{selector}}` is not a valid glob: {{error}}',
        help: 'close every `[` and `{`, and escape a literal `[`, `{` or `}` with `\\`',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  "mcp__[gh__*": deny\n',
      passing: 'mode: review\ntools:\n  "mcp__gh__*": deny\n',
      fix: 'Close the class or brace group, or escape the character if it is part of a tool name.',
    },
  },
  check(context, report) {
    for (const rule of context.selectors()) {
      // Too many brace alternatives is its own rule, with its own advice.
      if (rule.error === undefined || expandBraces(rule.selector) === undefined) continue;
      report({ messageId: 'invalid', data: { selector: rule.selector, error: rule.error }, path: rule.path });
    }
  },
});
