/**
 * `dsh-mode mode MODE --agent AGENT [--session ID | --latest]`: change an agent session's mode, and
 * `dsh-mode log --agent AGENT [--session ID]`: show its decisions (src/agents/session.ts).
 * @module
 */
import { resolve } from 'node:path';
import {
  formatSessionLog,
  readSessionLog,
  SessionError,
  setSessionMode,
  type SessionRef,
} from '../../agents/session.js';
import { AGENTS, isAgent } from '../../agents/tables.js';
import { stringOption, type ParsedArgs } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';

const AGENT_OPTIONS = [
  { name: 'agent', type: 'string', value: 'AGENT', description: `the agent: ${AGENTS.join(', ')}` },
  { name: 'session', type: 'string', value: 'ID', description: 'the session id the agent printed' },
  {
    name: 'workspace',
    type: 'string',
    value: 'DIR',
    description: "the session's folder, default the current folder",
  },
] as const;

const modeSpec: CommandSpec = {
  name: 'mode',
  summary: "change an agent session's mode (the only way out of plan besides Claude Code's plan approval)",
  usage: `mode MODE --agent AGENT (--session ID | --latest) [--workspace DIR]`,
  description: [
    "Appends the mode to the session's journal (.dsh/agents/AGENT/SESSION.jsonl): the hook decides the",
    "session's next calls in it. MODE is `default` or a mode the project's policies define. --latest is the",
    'session whose journal was written last. Run it yourself, in a terminal: in plan the agent cannot run it',
    '(plan allows only read-only commands). To change the mode new sessions start in, run install --mode.',
    '',
    'Exit codes: 0 set; 1 an unknown mode or session; 2 usage errors.',
  ].join('\n'),
  options: [...AGENT_OPTIONS, { name: 'latest', type: 'boolean', description: 'the session written last' }],
  examples: [
    'mode default --agent claude-code --latest',
    'mode plan --agent codex --session 01a24221-89b6-75b3-b13b-cc030d470559',
  ],
};

const logSpec: CommandSpec = {
  name: 'log',
  summary: "show an agent session's decisions with the rule that decided each",
  usage: `log --agent AGENT [--session ID] [--format text|json] [--workspace DIR]`,
  description: [
    "Prints the session's journal: its starting mode, every mode change and who made it, and every call the",
    'hook decided: the tool, the command or path, the mode and the source of that mode, the decision and',
    'the rule or pattern that made it (file:line:column). Without --session, the session written last.',
    '',
    'Exit codes: 0 printed; 1 no such session; 2 usage errors.',
  ].join('\n'),
  options: [
    ...AGENT_OPTIONS,
    {
      name: 'format',
      type: 'string',
      value: 'NAME',
      choices: ['text', 'json'],
      description: 'output format, default text',
    },
  ],
  examples: [
    'log --agent claude-code',
    'log --agent codex --session 01a24221-89b6-75b3-b13b-cc030d470559 --format json',
  ],
};

function ref(args: ParsedArgs, cwd: string): SessionRef {
  const agent = stringOption(args, 'agent');
  if (agent === undefined) throw new UsageError('missing `--agent AGENT`', `one of ${AGENTS.join(', ')}`);
  if (!isAgent(agent)) throw new UsageError(`unknown agent \`${agent}\``, `one of ${AGENTS.join(', ')}`);
  const session = stringOption(args, 'session');
  return {
    agent,
    workspace: resolve(cwd, stringOption(args, 'workspace') ?? '.'),
    ...(session === undefined ? {} : { session }),
  };
}

/** The command-line adapter of `mode`. */
export const command: CliCommand = {
  spec: modeSpec,
  async execute(args, env) {
    const [mode, ...rest] = args.positionals;
    if (mode === undefined) throw new UsageError('missing MODE');
    if (rest.length > 0) throw new UsageError(`unexpected \`${rest[0]}\``);
    const at = ref(args, env.cwd);
    const latest = args.options.has('latest');
    if ((at.session === undefined) === !latest)
      throw new UsageError(
        at.session === undefined
          ? 'name the session: `--session ID` or `--latest`'
          : '`--session` and `--latest` cannot be combined',
        'to change the mode new sessions start in, run `dsh-mode install AGENT --mode MODE`',
      );
    try {
      const set = await setSessionMode(at, mode, env.vars);
      const was = set.before === undefined ? '' : ` (was ${set.before})`;
      return { kind: 'ok', stdout: `${at.agent} session ${set.session}: ${set.mode} mode${was}\n` };
    } catch (error) {
      if (error instanceof SessionError) return { kind: 'unknown-mode', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};

/** The command-line adapter of `log`. */
export const logCommand: CliCommand = {
  spec: logSpec,
  async execute(args, env) {
    if (args.positionals.length > 0) throw new UsageError(`unexpected \`${args.positionals[0]}\``);
    try {
      const log = readSessionLog(ref(args, env.cwd));
      if (args.options.get('format') === 'json')
        return { kind: 'ok', stdout: `${JSON.stringify(log, null, 2)}\n` };
      return { kind: 'ok', stdout: formatSessionLog(log) };
    } catch (error) {
      if (error instanceof SessionError) return { kind: 'unknown-mode', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};
