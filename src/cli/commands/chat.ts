/**
 * `dsh-mode chat`: a terminal chat with an agent under the mode engine (see `../chat/run.ts`). It talks to the
 * terminal itself (streaming, questions), so the adapter only maps its exit code to an outcome: 0 ok, 1 an
 * untrusted cordis.yml or an unknown `--mode`, 2 a deployment or usage error (already printed on stderr) or a
 * failed `--prompt` turn, 130 an exit by Ctrl-C.
 * @module
 */
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec, OutcomeKind } from '../command.js';
import { UsageError } from '../errors.js';

const spec: CommandSpec = {
  name: 'chat',
  summary: 'chat with an agent in the terminal (plan mode, approvals, /mode)',
  usage:
    'chat [--config FILE] [--prompt TEXT] [--mode NAME] [--resume ID] [--model-script FILE] [--workspace DIR]',
  description: [
    'Starts the deployment (--config, else cordis.yml in the current folder, else the embedded default: the',
    'built-in tools, the mode plugin and the scripted demo model, or the DeepSeek model when DEEPSEEK_API_KEY is',
    'set) and chats with one agent. A cordis.yml found in the current folder loads only once you trust its',
    'content (`dsh-mode trust cordis.yml`; a changed file needs trust again); --config FILE is trust for that',
    'run. At start, stderr names every widening of plan mode, a workspace outside the current folder and a',
    'model endpoint other than the default.',
    '',
    'The session log is <workspace>/.dsh/sessions/<id>.jsonl; its id is printed at start and --resume ID',
    'continues it (--mode then wins over the logged mode). With the demo model a new session starts in plan',
    'mode (its script is a plan-mode walk-through).',
    '',
    'Lines are sent to the model except the commands: /mode (the modes and their descriptions), /mode NAME',
    '(switch from the next turn), /help, /exit. Ctrl-C cancels the running turn, a second Ctrl-C exits. A line',
    'typed on a terminal during a turn is queued for the next prompt. Approval questions (the plan of',
    'exit_plan_mode; a write or edit shown as a diff) are asked in the terminal: y approves, n or an empty line',
    'keeps planning, /exit cancels the question and leaves, any other text is sent back as feedback. At a plan,',
    'e opens it in $VISUAL or $EDITOR and y then approves the edited text (`dsh-mode plans` lists the plans of',
    'the logs). On leaving, the chat prints the command that resumes the session.',
    '',
    'Without a TTY, stdin is one queue of lines shared by prompts and approval answers; the end of input',
    'cancels a pending question and ends the chat. --prompt runs that one turn and exits.',
    '',
    '--demo runs the embedded demo (what `npm start` runs): its tools work in .dsh/demo/ (recreated), it',
    'starts in plan mode and sends its first prompt itself; with --resume it keeps .dsh/demo/ and waits for',
    'you. It never reads ./cordis.yml.',
    '',
    'Exit codes: 0 done; 1 a found cordis.yml that is not trusted (nothing was loaded) or an unknown --mode',
    '(the modes are listed); 2 a deployment error (file:line:column), unreadable trust records, a session that',
    'cannot be resumed, a usage error, or a --prompt turn that failed (its cause is printed: a refused',
    "connection, a host not found, a timeout, an HTTP status with the provider's message); 130 an exit by Ctrl-C.",
  ].join('\n'),
  options: [
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      description: 'the deployment file (default ./cordis.yml)',
    },
    { name: 'prompt', type: 'string', value: 'TEXT', description: 'run this one turn and exit' },
    { name: 'mode', type: 'string', value: 'NAME', description: 'start in this mode' },
    { name: 'resume', type: 'string', value: 'ID', description: 'continue .dsh/sessions/<ID>.jsonl' },
    {
      name: 'model-script',
      type: 'string',
      value: 'FILE',
      description: 'use the scripted model with this script',
    },
    {
      name: 'workspace',
      type: 'string',
      value: 'DIR',
      description: 'the folder the tools work in (default .)',
    },
    { name: 'demo', type: 'boolean', description: 'run the embedded plan-mode demo in .dsh/demo/' },
  ],
  examples: [
    'chat',
    'chat --mode plan',
    'chat --prompt "explain src/" --mode plan',
    'chat --resume 20261130-064501-1a2b3c',
  ],
};

/** The chat's exit codes as outcomes (0 and anything unlisted: `ok`). */
const OUTCOMES: Readonly<Record<number, OutcomeKind>> = { 1: 'load-failed', 2: 'io', 130: 'interrupted' };

/** The command-line adapter of `chat`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument \`${args.positionals[0]}\``);
    const text = (name: string) => stringOption(args, name);
    const { runChat } = await import('../../apps/chat/run.js');
    const code = await runChat(
      {
        cwd: env.cwd,
        config: text('config'),
        prompt: text('prompt'),
        mode: text('mode'),
        resume: text('resume'),
        modelScript: text('model-script'),
        workspace: text('workspace'),
        demo: args.options.has('demo'),
      },
      {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        tty: process.stdin.isTTY === true,
        color: env.color,
        ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
      },
    );
    return { kind: OUTCOMES[code] ?? 'ok' };
  },
};
