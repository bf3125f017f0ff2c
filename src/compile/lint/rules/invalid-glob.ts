/**
 * `invalid-glob`: a selector whose glob syntax is broken (an unclosed `[` or `{`, a stray `}`, a final `\`), or
 * a `commands:` or `paths:` pattern with an unclosed `[`. The matchers would read such a pattern as literal text
 * and silently match nothing the author meant.
 * @module
 */
import { expandBraces, unclosedClass } from '../../language/glob.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'invalid-glob',
  meta: {
    description: 'a selector, or a command or path pattern, is not a valid glob',
    severity: 'error',
    messages: {
      invalid: {
        text: 'selector `{{selector}}` is not a valid glob: {{error}}',
        help: 'close every `[` and `{`, and escape a literal `[`, `{` or `}` with `\\`',
      },
      pattern: {
        text: '{{kind}} pattern `{{pattern}}` is not a valid glob: unclosed `[` at column {{column}}',
        help: 'close the `[` with `]`{{literal}}',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  "mcp__[gh__*": deny\n',
      passing: 'mode: review\ntools:\n  "mcp__gh__*": deny\n',
      fix: 'Close the class or brace group, or escape the character if it is part of a tool name, command or path.',
    },
  },
  check(context, report) {
    for (const rule of context.selectors()) {
      // Too many brace alternatives is its own rule, with its own advice.
      if (rule.error === undefined || expandBraces(rule.selector) === undefined) continue;
      report({ messageId: 'invalid', data: { selector: rule.selector, error: rule.error }, path: rule.path });
    }
    for (const rule of context.argumentRules()) {
      for (const table of rule.tables) {
        for (const p of table.patterns) {
          const at = unclosedClass(p.source, table.kind);
          if (at === undefined) continue;
          const commands = table.kind === 'commands';
          const data = {
            kind: commands ? 'command' : 'path',
            pattern: p.source,
            column: String(at + 1),
            literal: commands
              ? ' (a word that is only `[` or `[[`, the test command, is fine)'
              : ', or escape a literal `[` with `\\`',
          };
          report({ messageId: 'pattern', data, path: p.path });
        }
      }
    }
  },
});
