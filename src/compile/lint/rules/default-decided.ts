/**
 * `default-decided` (needs `--tools CATALOG`): a catalogued tool that no selector or effect of its mode decides,
 * only a `default` (or nothing, which denies). Such a tool was probably never thought about; the finding is
 * informational, and lists each tool once per mode.
 *
 * Reported on the `default` key that decided it, or on the `mode` key of the mode's last document when no
 * document decides the tool; never on the built-in plan, which the operator cannot edit. Tools are judged with the hints the catalog declares.
 * @module
 */
import { defineRule } from './define.js';

export default defineRule({
  id: 'default-decided',
  meta: {
    description: 'a catalogued tool is decided only by a default',
    severity: 'info',
    messages: {
      byDefault: {
        text: 'tool `{{tool}}` is decided only by the default of mode `{{mode}}`: `{{decision}}`',
        help: 'add a rule for `{{tool}}`, or an `effects` rule for its hints, if this decision is not deliberate',
      },
      undecided: {
        text: 'no document of mode `{{mode}}` decides tool `{{tool}}`, so it is denied',
        help: 'add a rule for `{{tool}}` or a `default` to the mode',
      },
    },
    docs: {
      failing:
        'mode: review\ntools:\n  read: allow\ndefault: deny\n# catalog: [{"name": "read"}, {"name": "write"}]\n',
      passing: 'mode: review\ntools:\n  read: allow\n  write: deny\ndefault: deny\n',
      fix: 'Name the tool explicitly (or by an `effects` rule) so its decision is deliberate.',
    },
  },
  check(context, report) {
    // The built-in plan is not the operator's to edit: its default is the design, not an oversight.
    if (context.catalog === undefined || context.isBuiltin) return;
    const mode = context.source.document.mode;
    const policy = context.compose('mode');
    const isLastOfMode = context.modeDocuments.at(-1) === context.source;
    for (const tool of context.catalog) {
      const { decision, rule } = policy.decide(tool.name, tool.hints);
      if (rule.selector !== 'default') continue;
      if (rule.file === null) {
        if (isLastOfMode) report({ messageId: 'undecided', data: { tool: tool.name, mode }, path: ['mode'] });
        continue;
      }
      const path = context.pathOf(rule);
      if (path !== undefined)
        report({ messageId: 'byDefault', data: { tool: tool.name, mode, decision }, path });
    }
  },
});
