/**
 * `dsh-mode acp`: an Agent Client Protocol agent over stdio, for editors such as Zed (see `../acp/`). The
 * adapter only maps the exit code: 0 when the client closed the connection, 1 for an untrusted cordis.yml, 2 for
 * a deployment error (printed on stderr; stdout carries the protocol only), 130 when a signal ended it.
 * @module
 */
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';

const spec: CommandSpec = {
  name: 'acp',
  summary: 'serve the Agent Client Protocol on stdio (for Zed and other ACP clients)',
  usage: 'acp [--config FILE] [--model-script FILE]',
  description: [
    'Starts the deployment (--config, else cordis.yml in the current folder, else the embedded default) and',
    'speaks ACP on stdin/stdout until the client disconnects. Each session works in the `cwd` its client gives',
    '(tools, and the log in <cwd>/.dsh/sessions/<id>.jsonl; the ACP session id is the log id). Modes are',
    'advertised from the mode plugin; session/set_mode switches from the next turn; the plan of exit_plan_mode',
    'is asked with session/request_permission ("Approve plan" / "Keep planning").',
    '',
    'The deployment is chosen once, at start, from the folder the agent runs in (not per session). A cordis.yml',
    'found there loads only once you trust its content (`dsh-mode trust cordis.yml`); --config FILE is trust for',
    'that run. Start notices (a wider plan mode, a workspace outside the current folder, another model endpoint)',
    'go to stderr.',
    '',
    'Exit codes: 0 when the client closed the connection; 1 a found cordis.yml that is not trusted (nothing was',
    'loaded); 2 a deployment error, unreadable trust records or a usage error; 130 ended by SIGTERM, SIGINT or',
    'SIGHUP (its sessions closed first, so no lock is left).',
  ].join('\n'),
  options: [
    {
      name: 'config',
      type: 'string',
      value: 'FILE',
      description: 'the deployment file (default ./cordis.yml)',
    },
    {
      name: 'model-script',
      type: 'string',
      value: 'FILE',
      description: 'use the scripted model with this script',
    },
  ],
  examples: ['acp', 'acp --config cordis.yml'],
};

/** The command-line adapter of `acp`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument \`${args.positionals[0]}\``);
    const text = (name: string) => stringOption(args, name);
    const { runAcp } = await import('../../apps/acp/run.js');
    const code = await runAcp({ cwd: env.cwd, config: text('config'), modelScript: text('model-script') });
    return { kind: code === 130 ? 'interrupted' : code === 2 ? 'io' : code === 1 ? 'load-failed' : 'ok' };
  },
};
