/**
 * `dsh-mode hook AGENT`: the pre-tool hook of Claude Code, Codex, Gemini CLI and OpenCode (src/agents). The
 * installed command runs the same function from its own bundle (`bin/dsh-mode.mjs`); this module gives it its help
 * and runs it when the command line is used directly.
 * @module
 */
import { runHookProcess } from '../../agents/hook-main.js';
import { AGENTS } from '../../agents/tables.js';
import type { CliCommand, CommandSpec } from '../command.js';

const spec: CommandSpec = {
  name: 'hook',
  summary: "decide an agent's tool call from its pre-tool hook (Claude Code, Codex, Gemini CLI)",
  usage: `hook ${AGENTS.filter((a) => a !== 'opencode').join('|')}`,
  description: [
    "Reads the agent's hook input on stdin, maps its tool to dsh-mode's tools, decides it in the session's mode",
    "with the workspace's policies (cordis.yml when trusted, else the built-in ones), records the decision in",
    "the session's journal (.dsh/agents/AGENT/SESSION.jsonl) and answers in the agent's own form. Any error",
    'is a deny with its reason. `dsh-mode install AGENT` registers it; see docs/agents.md.',
    '',
    'Exit codes: 0 with the answer on stdout; 2 with the reason on stderr when no answer could be written.',
  ].join('\n'),
  options: [],
  examples: ['hook claude-code < input.json'],
};

/** The command-line adapter of `hook`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    let stdout = '';
    let stderr = '';
    const code = await runHookProcess(args.positionals[0], {
      stdin: process.stdin,
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      cwd: env.cwd,
      env: env.vars,
    });
    return { kind: code === 0 ? 'ok' : 'io', stdout, stderr };
  },
};
