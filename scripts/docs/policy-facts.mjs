// @ts-check
/**
 * Facts of the policy language that live in the compiler, not the schema: the hints `effects` reads with their
 * MCP defaults (computed by `effectiveHints`), and the limits that refuse a file (the exported constants).
 * @module
 */
import { effectiveHints, HINT_NAMES } from '../../dist/compile/decide/document.js';
import { MAX_BRACE_ALTERNATIVES } from '../../dist/compile/language/glob.js';
import { MAX_ALIAS_COUNT, MAX_DEPTH, MAX_POLICY_BYTES } from '../../dist/compile/language/parse.js';
import { code, table } from './markdown.mjs';

/** The MCP `ToolAnnotations` field of each short hint name. */
const MCP_NAME = /** @type {const} */ ({
  readOnly: 'readOnlyHint',
  destructive: 'destructiveHint',
  idempotent: 'idempotentHint',
  openWorld: 'openWorldHint',
});

/**
 * @returns {string} the hints section: name, MCP field, and the value a tool that declares nothing has
 */
export function hintsSection() {
  const none = effectiveHints({});
  const readOnly = effectiveHints({ readOnly: true });
  const rows = HINT_NAMES.map((hint) => [
    code(hint),
    code(MCP_NAME[hint]),
    code(String(none[hint])),
    hint === 'readOnly' ? '' : code(String(readOnly[hint])),
  ]);
  return [
    '## Hints',
    '`effects` keys, test `annotations` and `dsh-mode check --annotations` use the short names of MCP `ToolAnnotations`; a tool catalog (`--tools`) uses MCP’s names. A hint the tool does not declare takes MCP’s default, computed here by the compiler’s `effectiveHints`:',
    table(['Hint', 'MCP annotation', 'Default', 'Default when the tool declares `readOnly`'], rows),
  ].join('\n\n');
}

/**
 * @returns {string} the limits section
 */
export function limitsSection() {
  return [
    '## Limits',
    'Hostile or broken input becomes a precise error, never a crash or a silent drop. These refuse the file (it contributes no document):',
    [
      `- larger than ${MAX_POLICY_BYTES} bytes ([too-large](lint-rules.md#too-large));`,
      `- nested deeper than ${MAX_DEPTH} levels ([too-deep](lint-rules.md#too-deep));`,
      `- more than ${MAX_ALIAS_COUNT} YAML aliases ([alias-limit](lint-rules.md#alias-limit));`,
      '- a key twice in one mapping ([duplicate-key](lint-rules.md#duplicate-key)), a YAML or JSON syntax error, an unknown key, a value of the wrong type.',
    ].join('\n'),
    `A selector whose braces expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives matches nothing and is a lint error ([too-many-alternatives](lint-rules.md#too-many-alternatives)); the rest of the file still loads.`,
  ].join('\n\n');
}
