/**
 * `dsh-mode install AGENT` and `dsh-mode uninstall AGENT` (src/agents/install.ts): the hook registration of
 * Claude Code, Codex, Gemini CLI or OpenCode written or removed, and the mode new sessions start in.
 * @module
 */
import { resolve } from 'node:path';
import { install, InstallError, uninstall, type InstallReport } from '../../agents/install.js';
import { AGENTS, isAgent, type AgentName } from '../../agents/tables.js';
import { stringOption, type ParsedArgs } from '../argv.js';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import { UsageError } from '../errors.js';

const SCOPE_OPTIONS = [
  { name: 'project', type: 'boolean', description: "the project's own settings (default)" },
  { name: 'user', type: 'boolean', description: "the user's settings: every project" },
  {
    name: 'workspace',
    type: 'string',
    value: 'DIR',
    description: 'the project folder, default the current folder',
  },
] as const;

const installSpec: CommandSpec = {
  name: 'install',
  summary: "register dsh-mode's hook in an agent (Claude Code, Codex, Gemini CLI, OpenCode)",
  usage: `install ${AGENTS.join('|')} [--project|--user] [--mode MODE] [--workspace DIR]`,
  description: [
    "Writes exactly one hook registration into the agent's settings (or, for OpenCode, a plugin file), and",
    'the mode its new sessions start in (--mode, default `default`). Running it again changes the mode and',
    'leaves the hook as it is. It prints every file it changed, and what the agent needs besides (Codex:',
    'trusting the hook with /hooks, which install never does for you). It refuses a project whose policies',
    'do not load (cordis.yml untrusted or with errors), a MODE they do not define, and a hook in its place',
    'that dsh-mode did not write. See docs/agents.md.',
    '',
    'Exit codes: 0 installed; 1 refused (nothing was written); 2 usage errors.',
  ].join('\n'),
  options: [
    ...SCOPE_OPTIONS,
    {
      name: 'mode',
      type: 'string',
      value: 'MODE',
      description: 'the mode new sessions start in, default `default`',
    },
    {
      name: 'http',
      type: 'string',
      value: 'PORT',
      description: 'Claude Code: register the http hook of `dsh-mode serve` on PORT instead of the command',
    },
  ],
  examples: [
    'install claude-code --mode plan',
    'install codex --user',
    'install opencode --project --mode plan',
    'install claude-code --http 4917',
  ],
};

const uninstallSpec: CommandSpec = {
  name: 'uninstall',
  summary: "remove dsh-mode's hook from an agent",
  usage: `uninstall ${AGENTS.join('|')} [--project|--user] [--workspace DIR]`,
  description: [
    'Removes the hook registration and the starting mode that install wrote, and nothing else; the',
    "sessions' journals stay.",
    '',
    'Exit codes: 0 done; 1 refused; 2 usage errors.',
  ].join('\n'),
  options: [...SCOPE_OPTIONS],
  examples: ['uninstall claude-code', 'uninstall codex --user'],
};

function target(
  args: ParsedArgs,
  cwd: string,
): { agent: AgentName; scope: 'project' | 'user'; workspace: string } {
  const [agent, ...rest] = args.positionals;
  if (agent === undefined) throw new UsageError('missing AGENT', `one of ${AGENTS.join(', ')}`);
  if (!isAgent(agent)) throw new UsageError(`unknown agent \`${agent}\``, `one of ${AGENTS.join(', ')}`);
  if (rest.length > 0) throw new UsageError(`unexpected \`${rest[0]}\``);
  if (args.options.has('project') && args.options.has('user'))
    throw new UsageError('`--project` and `--user` cannot be combined');
  const workspace = resolve(cwd, stringOption(args, 'workspace') ?? '.');
  return { agent, scope: args.options.has('user') ? 'user' : 'project', workspace };
}

function render(report: InstallReport): Outcome {
  const notes = report.notes.map((n) => `note: ${n}\n`).join('');
  return {
    kind: 'ok',
    stdout: report.changes.map((c) => `${c}\n`).join(''),
    ...(notes ? { stderr: notes } : {}),
  };
}

/** The command-line adapter of `install`. */
export const command: CliCommand = {
  spec: installSpec,
  async execute(args, env) {
    const mode = stringOption(args, 'mode');
    const http = stringOption(args, 'http');
    const at = target(args, env.cwd);
    const port = http === undefined ? undefined : Number(http);
    if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535))
      throw new UsageError('`--http` must be a port number');
    if (port !== undefined && at.agent !== 'claude-code')
      throw new UsageError('`--http` is for claude-code only');
    try {
      return render(
        await install({
          ...at,
          env: env.vars,
          ...(mode === undefined ? {} : { mode }),
          ...(port === undefined ? {} : { http: port }),
        }),
      );
    } catch (error) {
      if (error instanceof InstallError) return { kind: 'load-failed', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};

/** The command-line adapter of `uninstall`. */
export const uninstallCommand: CliCommand = {
  spec: uninstallSpec,
  async execute(args, env) {
    try {
      return render(uninstall({ ...target(args, env.cwd), env: env.vars }));
    } catch (error) {
      if (error instanceof InstallError) return { kind: 'load-failed', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};
