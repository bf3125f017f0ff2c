/**
 * The command table: name, one-line summary (for `dsh-mode --help` without loading any command) and a lazy
 * loader, so `lint` never loads the code of other commands (ACP, models). To add a command, add
 * `commands/<name>.ts` exporting `command: CliCommand` and one line here, in sorted order.
 * @module
 */
import type { CliCommand } from '../command.js';

/** One entry of the command table. */
export interface CommandEntry {
  summary: string;
  load(): Promise<CliCommand>;
}

/** Every command by name, sorted. */
export const commands: Readonly<Record<string, CommandEntry>> = {
  acp: {
    summary: 'serve the Agent Client Protocol on stdio (for Zed and other ACP clients)',
    load: async () => (await import('./acp.js')).command,
  },
  catalog: {
    summary: "write a deployment's tool catalog (built-in and MCP tools) for --tools",
    load: async () => (await import('./catalog.js')).command,
  },
  chat: {
    summary: 'chat with an agent in the terminal (plan mode, approvals, /mode)',
    load: async () => (await import('./chat.js')).command,
  },
  check: {
    summary: 'show how a mode decides one tool, and which rule decided',
    load: async () => (await import('./check.js')).command,
  },
  diff: {
    summary: 'compare the decisions of two policy sets and flag escalations',
    load: async () => (await import('./diff.js')).command,
  },
  doctor: {
    summary: 'check that this machine can run what dsh-mode relies on (the OS sandbox)',
    load: async () => (await import('./doctor.js')).command,
  },
  hook: {
    summary: "decide an agent's tool call from its pre-tool hook (Claude Code, Codex, Gemini CLI)",
    load: async () => (await import('./hook.js')).command,
  },
  install: {
    summary: "register dsh-mode's hook in an agent (Claude Code, Codex, Gemini CLI, OpenCode)",
    load: async () => (await import('./install.js')).command,
  },
  lint: {
    summary: 'validate policies, run their inline tests and report findings',
    load: async () => (await import('./lint.js')).command,
  },
  log: {
    summary: "show an agent session's decisions with the rule that decided each",
    load: async () => (await import('./mode.js')).logCommand,
  },
  matrix: {
    summary: 'show the decision of every mode for every tool as a grid',
    load: async () => (await import('./matrix.js')).command,
  },
  mode: {
    summary: "change an agent session's mode (the only way out of plan besides Claude Code's plan approval)",
    load: async () => (await import('./mode.js')).command,
  },
  plans: {
    summary: 'list the plans of the session logs, or print one as Markdown',
    load: async () => (await import('./plans.js')).command,
  },
  schema: {
    summary: 'print or write the JSON Schemas for editors',
    load: async () => (await import('./schema.js')).command,
  },
  serve: {
    summary: "answer Claude Code's http hook on 127.0.0.1, so no process starts per tool call",
    load: async () => (await import('./serve.js')).command,
  },
  trust: {
    summary: 'trust a cordis.yml so chat and acp load it from this folder',
    load: async () => (await import('./trust.js')).command,
  },
  uninstall: {
    summary: "remove dsh-mode's hook from an agent",
    load: async () => (await import('./install.js')).uninstallCommand,
  },
};
