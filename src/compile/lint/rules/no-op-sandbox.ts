/**
 * `no-op-sandbox`: a `sandbox` key that changes nothing. The setting applies only to tools that run programs
 * (`bash`; MCP tools never), so in a mode where none of them is visible it has nothing to contain. And documents of
 * a mode compose as a ceiling, so `sandbox: none` in a mode another document puts under `read-only` (an
 * operator's plan file under the built-in plan) cannot lift the sandbox: only `override: true` does.
 *
 * The tools are the catalog's (`--tools`), or the built-in tools without one; visibility is the mode's as
 * composed, the way the tool view decides it.
 * @module
 */
import { builtinToolCatalog } from '../../catalog/catalog.js';
import { defineRule } from './define.js';

export default defineRule({
  id: 'no-op-sandbox',
  meta: {
    description: 'a `sandbox` setting that changes nothing',
    severity: 'warning',
    messages: {
      noProgramTool: {
        text: '`sandbox: {{kind}}` has no effect: mode `{{mode}}` shows no tool that runs programs',
        help: 'the setting applies to `bash` only: allow `bash` in the mode, or remove `sandbox`',
      },
      underCeiling: {
        text: '`sandbox: none` has no effect: mode `{{mode}}` requires a read-only sandbox by {{rule}}',
        help: 'documents of a mode compose as a ceiling, so the read-only sandbox stays: remove `sandbox: none`, or replace the mode with `override: true`',
      },
    },
    docs: {
      failing: 'mode: review\nsandbox: read-only\ntools:\n  read: allow\ndefault: deny\n',
      passing: 'mode: review\ntools:\n  read: allow\ndefault: deny\n',
      fix: 'Remove `sandbox` from a mode that runs no programs; `sandbox: none` cannot lift a read-only sandbox that another document of the mode sets.',
    },
  },
  check(context, report) {
    const kind = context.source.document.sandbox;
    // The built-in plan cannot be edited: a mode whose operator denies `bash` simply has nothing to contain.
    if (kind === undefined || context.isBuiltin) return;
    const mode = context.source.document.mode;
    const composed = context.compose('mode');
    const tools = (context.catalog ?? builtinToolCatalog()).filter((tool) => tool.runsPrograms);
    if (!tools.some((tool) => composed.visible(tool.name, tool.hints))) {
      report({ messageId: 'noProgramTool', data: { kind, mode }, path: ['sandbox'] });
      return;
    }
    const ceiling = composed.sandbox;
    if (kind === 'none' && ceiling?.kind === 'read-only') {
      const { file, line, column } = ceiling.rule;
      const where = file === null ? '' : ` at ${file.split('/').at(-1)}:${line ?? 1}:${column ?? 1}`;
      report({ messageId: 'underCeiling', data: { mode, rule: `\`sandbox\`${where}` }, path: ['sandbox'] });
    }
  },
});
