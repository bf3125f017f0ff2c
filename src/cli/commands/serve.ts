/**
 * `dsh-mode serve [--port N]`: Claude Code's http hook on 127.0.0.1 (src/agents/serve.ts), until interrupted.
 * @module
 */
import { ensureSecret, serve, SECRET_ENV } from '../../agents/serve.js';
import { stringOption } from '../argv.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';

const spec: CommandSpec = {
  name: 'serve',
  summary: "answer Claude Code's http hook on 127.0.0.1, so no process starts per tool call",
  usage: 'serve [--port N]',
  description: [
    'Listens on 127.0.0.1 only, POST /hook/claude-code, and decides each call as `dsh-mode hook claude-code`',
    'does. Every request must carry `Authorization: Bearer SECRET`, the secret `install claude-code --http PORT`',
    `wrote (the config folder's serve.secret); Claude Code sends it from $${SECRET_ENV}. Runs until interrupted.`,
    '',
    'Exit codes: 0 stopped by SIGINT or SIGTERM; 2 usage errors, or the port cannot be listened on.',
  ].join('\n'),
  options: [{ name: 'port', type: 'string', value: 'N', description: 'the port, default 4917' }],
  examples: ['serve --port 4917'],
};

/** The command-line adapter of `serve`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const port = Number(stringOption(args, 'port') ?? '4917');
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError('`--port` must be a port number');
    const { secret, file } = ensureSecret(env.vars);
    const serving = await serve({ port, secret, env: env.vars, cwd: env.cwd });
    process.stderr.write(`dsh-mode serve: ${serving.url} (secret in ${file})\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await serving.close();
    return { kind: 'ok' };
  },
};
