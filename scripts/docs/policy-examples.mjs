// @ts-check
/**
 * The worked examples of the policy-language page: only documents and questions live here; the answers are
 * computed by the compiler while generating (see examples.mjs).
 * @module
 */

/** @type {import('./examples.mjs').WorkedExample[]} */
export const RESOLUTION_EXAMPLES = [
  {
    title: 'An exact name beats every glob',
    intro:
      '`web_fetch` is named exactly, so the broader `web_*` does not decide it; a tool nothing matches falls to `default`.',
    mode: 'research',
    docs: [
      {
        file: 'research.yaml',
        text: 'mode: research\ntools:\n  "web_*": deny\n  web_fetch: allow\ndefault: ask\n',
      },
    ],
    queries: [{ tool: 'web_fetch' }, { tool: 'web_search' }, { tool: 'read' }],
  },
  {
    title: 'The most specific glob wins',
    intro:
      'Specificity is the count of literal characters, so `mcp__github__get_*` (18) beats `mcp__github__*` (13), which beats `mcp__*` (5), whatever their order in the file.',
    mode: 'triage',
    docs: [
      {
        file: 'triage.yaml',
        text: 'mode: triage\ntools:\n  "mcp__github__get_*": allow\n  "mcp__*": deny\n  "mcp__github__*": ask\ndefault: deny\n',
      },
    ],
    queries: [
      { tool: 'mcp__github__get_issue' },
      { tool: 'mcp__github__create_issue' },
      { tool: 'mcp__slack__post' },
    ],
  },
  {
    title: 'Equal globs that disagree: the most restrictive, and a lint error',
    intro:
      '`read_*` and `*_file` both have five literal characters and both match `read_file`: the more restrictive decision applies, and lint reports the conflict so you can resolve it.',
    mode: 'files',
    docs: [
      {
        file: 'files.yaml',
        text: 'mode: files\ntools:\n  "read_*": allow\n  "*_file": deny\ndefault: ask\n',
      },
    ],
    queries: [{ tool: 'read_file' }, { tool: 'read_dir' }, { tool: 'write_file' }],
  },
  {
    title: 'Effects decide by declared hints, the most restrictive first',
    intro:
      'For tools no name or glob matches, `effects` applies the most restrictive decision among the hints that are true for the tool, with MCP defaults for hints it does not declare (`openWorld` true, `destructive` true unless read-only).',
    mode: 'careful',
    docs: [
      {
        file: 'careful.yaml',
        text: 'mode: careful\neffects:\n  readOnly: allow\n  openWorld: ask\n  destructive: deny\ndefault: ask\n',
      },
    ],
    queries: [
      { tool: 'lookup', hints: { readOnly: true, openWorld: false } },
      { tool: 'search_web', hints: { readOnly: true } },
      { tool: 'delete_row', hints: { openWorld: false } },
      { tool: 'format', hints: { destructive: false, openWorld: false } },
    ],
  },
  {
    title: 'A name or glob beats effects',
    intro:
      'Hints are consulted only when no `tools` selector matches: an MCP tool declaring itself read-only is still denied by `mcp__*`.',
    mode: 'review',
    docs: [
      {
        file: 'review.yaml',
        text: 'mode: review\ntools:\n  "mcp__*": { decision: deny, reason: Review mode does not call MCP servers. }\neffects:\n  readOnly: allow\ndefault: deny\n',
      },
    ],
    queries: [
      { tool: 'mcp__gh__list_issues', hints: { readOnly: true } },
      { tool: 'lsp_hover', hints: { readOnly: true } },
      { tool: 'write' },
    ],
  },
];

/** @type {import('./examples.mjs').WorkedExample[]} */
export const COMPOSITION_EXAMPLES = [
  {
    title: 'A document without default narrows plan',
    intro:
      'This team document has no `default`, so it abstains on every tool it does not name: plan keeps deciding those, and only the web tools become stricter.',
    builtin: true,
    mode: 'plan',
    docs: [
      {
        file: 'team/plan-offline.yaml',
        text: 'mode: plan\ntools:\n  "web_*": { decision: deny, reason: This deployment plans offline. }\n',
      },
    ],
    queries: [{ tool: 'web_fetch' }, { tool: 'read' }, { tool: 'write' }, { tool: 'exit_plan_mode' }],
  },
  {
    title: 'A document cannot widen plan',
    intro:
      'Composition is a ceiling: plan denies `write` and `bash`, so allowing them in a second document changes nothing. Lint points at such rules (below).',
    builtin: true,
    mode: 'plan',
    docs: [{ file: 'team/plan-wider.yaml', text: 'mode: plan\ntools:\n  write: allow\n  bash: ask\n' }],
    queries: [{ tool: 'write' }, { tool: 'bash' }, { tool: 'read' }],
  },
  {
    title: 'override: true replaces the mode',
    intro:
      'The one way to widen a mode is to replace it: this document drops the built-in plan rules entirely (its section too), and lint reports the override so a reviewer sees it.',
    builtin: true,
    mode: 'plan',
    docs: [
      {
        file: 'team/plan-override.yaml',
        text: 'mode: plan\noverride: true\nsection: Plan, then ask before each write.\ntools:\n  read: allow\n  write: ask\n  exit_plan_mode: ask\ndefault: deny\n',
      },
    ],
    queries: [{ tool: 'write' }, { tool: 'web_fetch' }, { tool: 'exit_plan_mode' }],
  },
  {
    title: 'A tool no document decides is denied',
    intro:
      'Without any `default`, tools the documents do not match are denied by the built-in rule, which has no file.',
    mode: 'notes',
    docs: [{ file: 'notes.yaml', text: 'mode: notes\ntools:\n  read: allow\n  todo_write: allow\n' }],
    queries: [{ tool: 'read' }, { tool: 'write' }],
  },
  {
    title: 'Ties are reported from the first document',
    intro:
      'Both documents deny `bash`; the decision is the same, and the rule reported is the first in load order (here the built-in plan’s `default`, so this document’s reason is not the one shown).',
    builtin: true,
    mode: 'plan',
    docs: [
      {
        file: 'team/plan-no-bash.yaml',
        text: 'mode: plan\ntools:\n  bash: { decision: deny, reason: A text gate is not a sandbox. }\n',
      },
    ],
    queries: [{ tool: 'bash' }],
  },
];
