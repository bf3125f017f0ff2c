/**
 * `unknown-argument`: a `commands:` or `paths:` table that reads an argument the tool does not have, or one that
 * is not a string. Every call is then judged as unanalysable (never allowed: `ask` under an `allow` base, the base
 * otherwise), so the patterns decide nothing, and an allow the author meant becomes a prompt on every call.
 *
 * A tool's arguments come from its `inputSchema` in the catalog (`--tools`); the built-in tools (`read`, `bash`,
 * …) have known schemas, used when no catalog gives theirs. A tool with no known schema is not checked, nor is the
 * built-in plan. Reported once per table, on the first tool (in catalog order) that lacks the argument.
 * @module
 */
import { BUILTIN_ARGUMENT_TYPES } from '../../catalog/builtin-arguments.js';
import { suggest } from '../../language/suggest.js';
import { defineRule, type RuleContext } from './define.js';

export default defineRule({
  id: 'unknown-argument',
  meta: {
    description: "an argument rule reads an argument the tool's schema does not declare as a string",
    severity: 'warning',
    messages: {
      missing: {
        text: '`{{kind}}` reads argument `{{argument}}`, which tool `{{tool}}` does not have: every call is judged unanalysable',
        help: 'name one of its arguments with `argument:` ({{arguments}})',
      },
      missingNear: {
        text: '`{{kind}}` reads argument `{{argument}}`, which tool `{{tool}}` does not have: every call is judged unanalysable',
        help: 'did you mean `argument: {{suggestion}}`?',
      },
      notString: {
        text: '`{{kind}}` reads argument `{{argument}}` of tool `{{tool}}`, which its schema types as `{{type}}`, not a string: every call is judged unanalysable',
        help: 'point `argument:` at a string argument ({{arguments}})',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  read:\n    argument: file\n    paths:\n      ".env*": deny\n',
      passing: 'mode: review\ntools:\n  read:\n    paths:\n      ".env*": deny\n',
      fix: "Point `argument:` at the string argument that holds the command or path, as the tool's `inputSchema` names it (the built-in tools need none).",
    },
  },
  check(context, report) {
    if (context.isBuiltin) return;
    const rules = context.argumentRules();
    if (rules.length === 0) return;
    const tools = schemas(context);
    for (const rule of rules) {
      const alternatives = context.selectors().find((s) => s.selector === rule.selector)?.alternatives ?? [];
      for (const table of rule.tables) {
        for (const [tool, declared] of tools) {
          if (!alternatives.some((alt) => alt.match(tool))) continue;
          const types = Object.hasOwn(declared, table.argument) ? declared[table.argument] : undefined;
          const names = Object.keys(declared);
          const list = names.length > 0 ? names.map((n) => `\`${n}\``).join(', ') : 'it declares none';
          const path = rule.namesArgument ? [...rule.path, 'argument'] : [...rule.path, table.kind];
          const data = { kind: table.kind, argument: table.argument, tool, arguments: list };
          if (types === undefined) {
            const near = suggest(table.argument, names, 1)[0];
            if (near === undefined) report({ messageId: 'missing', data, path });
            else report({ messageId: 'missingNear', data: { ...data, suggestion: near }, path });
          } else if (types.length > 0 && !types.includes('string')) {
            report({ messageId: 'notString', data: { ...data, type: types.join(' | ') }, path });
          } else continue;
          break;
        }
      }
    }
  },
});

/** Each tool's declared arguments: the catalog's, else the built-in tools' own schemas. */
function schemas(context: RuleContext): [string, Readonly<Record<string, readonly string[]>>][] {
  const out = new Map<string, Readonly<Record<string, readonly string[]>>>();
  for (const tool of context.catalog ?? []) if (tool.arguments) out.set(tool.name, tool.arguments);
  for (const [name, declared] of BUILTIN_ARGUMENT_TYPES) if (!out.has(name)) out.set(name, declared);
  return [...out];
}
