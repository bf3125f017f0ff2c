/**
 * The per-agent tool tables: how each agent's tool names and argument names map onto dsh-mode's tools, so that one
 * policy decides every agent's calls. They are data: `dsh-mode hook` reads nothing else to map a call, and
 * docs/agents.md prints them (`test/agents-unit/tables.test.ts` checks the two agree, and checks every entry
 * against the hook inputs captured from the real agents in test/agents/fixtures/).
 *
 * An entry names dsh-mode's tool and, for each of its arguments, the agent's argument that carries it. An agent's
 * tool that no entry names is decided under its own name, so a mode that does not name it denies it by default
 * (plan does); an MCP tool keeps its `mcp__server__tool` name the same way. Codex's `apply_patch` is not a table
 * entry but a patch: every path it adds, updates, deletes or moves is decided as a write or edit of that path
 * (`apply-patch.ts`).
 * @module
 */

/** The agents `dsh-mode hook` answers, by the name the command takes. */
export const AGENTS = ['claude-code', 'codex', 'gemini', 'opencode'] as const;

/** One of {@link AGENTS}. */
export type AgentName = (typeof AGENTS)[number];

/** One row of a table: the agent's tool as one of dsh-mode's. */
export interface ToolMapping {
  /** dsh-mode's tool (`bash`, `read`, `write`, `edit`, `list`, `grep`, `web_fetch`, …). */
  readonly tool: string;
  /** dsh-mode's argument name → the agent's argument name. Arguments not listed are not passed on. */
  readonly args: Readonly<Record<string, string>>;
}

/** What dsh-mode calls a tool's arguments: the shell command, and a file tool's path. */
const SHELL = 'bash';

/**
 * Every agent's table. The agents' own names were read from the hook inputs of the pinned versions
 * (test/agents/versions.json); tools an agent offers that have no counterpart here (sub-agents, skills, tool
 * search) are decided under their own names.
 */
export const TOOL_TABLES: Readonly<Record<AgentName, Readonly<Record<string, ToolMapping>>>> = {
  'claude-code': {
    Bash: { tool: SHELL, args: { command: 'command' } },
    Read: { tool: 'read', args: { path: 'file_path' } },
    Write: { tool: 'write', args: { path: 'file_path', content: 'content' } },
    Edit: { tool: 'edit', args: { path: 'file_path', old_string: 'old_string', new_string: 'new_string' } },
    MultiEdit: { tool: 'edit', args: { path: 'file_path' } },
    NotebookEdit: { tool: 'edit', args: { path: 'notebook_path' } },
    Grep: { tool: 'grep', args: { pattern: 'pattern', path: 'path' } },
    Glob: { tool: 'list', args: { path: 'path' } },
    LS: { tool: 'list', args: { path: 'path' } },
    TodoWrite: { tool: 'todo_write', args: { todos: 'todos' } },
    WebFetch: { tool: 'web_fetch', args: { url: 'url' } },
    WebSearch: { tool: 'web_search', args: { query: 'query' } },
    // Claude Code's own plan approval: dsh-mode's plan asks for it, and Claude Code asks its user.
    ExitPlanMode: { tool: 'exit_plan_mode', args: { plan: 'plan' } },
  },
  // Codex reports `exec_command` as `Bash`; `apply_patch` is a patch (see the module header). It has no read tool.
  codex: {
    Bash: { tool: SHELL, args: { command: 'command' } },
  },
  gemini: {
    run_shell_command: { tool: SHELL, args: { command: 'command' } },
    read_file: { tool: 'read', args: { path: 'file_path' } },
    write_file: { tool: 'write', args: { path: 'file_path', content: 'content' } },
    replace: {
      tool: 'edit',
      args: { path: 'file_path', old_string: 'old_string', new_string: 'new_string' },
    },
    list_directory: { tool: 'list', args: { path: 'dir_path' } },
    glob: { tool: 'list', args: { path: 'dir_path' } },
    search_file_content: { tool: 'grep', args: { pattern: 'pattern', path: 'dir_path' } },
    grep_search: { tool: 'grep', args: { pattern: 'pattern', path: 'dir_path' } },
    web_fetch: { tool: 'web_fetch', args: { prompt: 'prompt' } },
    google_web_search: { tool: 'web_search', args: { query: 'query' } },
    write_todos: { tool: 'todo_write', args: { todos: 'todos' } },
    exit_plan_mode: { tool: 'exit_plan_mode', args: {} },
  },
  opencode: {
    bash: { tool: SHELL, args: { command: 'command' } },
    read: { tool: 'read', args: { path: 'filePath' } },
    write: { tool: 'write', args: { path: 'filePath', content: 'content' } },
    edit: { tool: 'edit', args: { path: 'filePath', old_string: 'oldString', new_string: 'newString' } },
    list: { tool: 'list', args: { path: 'path' } },
    glob: { tool: 'list', args: { path: 'path' } },
    grep: { tool: 'grep', args: { pattern: 'pattern', path: 'path' } },
    todowrite: { tool: 'todo_write', args: { todos: 'todos' } },
    webfetch: { tool: 'web_fetch', args: { url: 'url' } },
  },
};

/** Codex's patch tool, whose input is patch text, not arguments. */
export const APPLY_PATCH = 'apply_patch';

/**
 * Whether a name is one of the agents.
 * @param name the name given on the command line
 */
export function isAgent(name: string): name is AgentName {
  return (AGENTS as readonly string[]).includes(name);
}
