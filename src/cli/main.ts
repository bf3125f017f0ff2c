/**
 * The `dsh-mode` command line: `main(argv)` parses the command, lazily imports its module (so `lint` never loads
 * the code of `chat` or `acp`), runs it, writes its output and returns the exit code. This is the one place that
 * maps outcomes to exit codes and the one place that writes to stdout and stderr.
 *
 * Exit codes: 0 success; 1 findings (lint errors, warnings over `--max-warnings`), an unknown mode or a policy
 * file that cannot load (`check`); 2 usage errors, unreadable inputs and internal errors; 130 an interactive
 * command ended by Ctrl-C (`chat`).
 * @module
 */
import { parseArgv } from './argv.js';
import { colourEnabled } from '../apps/colour.js';
import type { CliEnv, CommandContext, OutcomeKind } from './command.js';
import { commands } from './commands/index.js';
import { UsageError } from './errors.js';
import { renderCommandHelp, renderMainHelp } from './help.js';
import { suggest } from '../compile/index.js';
import { packageReadmeUri, packageRepository, packageVersion } from '../apps/version.js';
import { invocation } from '../apps/invocation.js';

/** The exit code of each outcome: the only table of exit codes. */
export const EXIT_CODES: Readonly<Record<OutcomeKind | 'internal', number>> = {
  ok: 0,
  findings: 1,
  'unknown-mode': 1,
  'load-failed': 1,
  io: 2,
  usage: 2,
  interrupted: 130,
  internal: 2,
};

/** Where `main` writes and what it reads of its environment; defaults to the process's. */
export interface MainIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The folder and colour; `vars` defaults to `process.env`. */
  env: Omit<CliEnv, 'vars'> & Partial<Pick<CliEnv, 'vars'>>;
}

/**
 * Runs the command line.
 * @param argv the arguments after `node dsh-mode`
 * @param io streams and environment (tests pass their own)
 * @returns the exit code
 */
export async function main(argv: string[], io: MainIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  // Hints print the command as it was run (`npx dsh-mode …` through npx).
  const self = invocation(io.env.vars ?? process.env);
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      io.stdout(renderMainHelp());
      return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
    }
    if (name === '--version' || name === '-v') {
      io.stdout(`${packageVersion()}\n`);
      return EXIT_CODES.ok;
    }
    const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (entry === undefined) {
      const near = suggest(name, Object.keys(commands));
      throw new UsageError(
        name.startsWith('-') ? `unknown option \`${name}\`` : `unknown command \`${name}\``,
        near.length > 0 ? `did you mean \`${near[0]}\`?` : `run \`${self} --help\` for the commands`,
      );
    }
    const command = await entry.load();
    try {
      const args = parseArgv(rest, command.spec.options);
      if (args.options.has('help')) {
        io.stdout(renderCommandHelp(command.spec));
        return EXIT_CODES.ok;
      }
      // The one format context of the run: every formatter gets its folder, colour and version from here.
      const repository = packageRepository();
      const context: CommandContext = {
        vars: process.env,
        ...io.env,
        version: packageVersion(),
        documentation: packageReadmeUri(),
        ...(repository === undefined ? {} : { repository }),
      };
      const outcome = await command.execute(args, context);
      if (outcome.stdout) io.stdout(outcome.stdout);
      if (outcome.stderr) io.stderr(outcome.stderr);
      return EXIT_CODES[outcome.kind];
    } catch (error) {
      if (error instanceof UsageError) {
        io.stderr(
          usageText(
            error,
            `usage: ${self} ${command.spec.usage}\nrun \`${self} ${name} --help\` for details`,
          ),
        );
        return EXIT_CODES.usage;
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(usageText(error));
      return EXIT_CODES.usage;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr(
      `internal error: ${detail}\nthis is a bug in dsh-mode: please report it with the command you ran\n`,
    );
    return EXIT_CODES.internal;
  }
}

function usageText(error: UsageError, usage?: string): string {
  return [`error: ${error.message}`, error.help ? `help: ${error.help}` : '', usage ?? '']
    .filter((l) => l.length > 0)
    .join('\n')
    .concat('\n');
}

function processIo(): MainIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: {
      cwd: process.cwd(),
      vars: process.env,
      color: colourEnabled(process.env, process.stdout.isTTY === true),
    },
  };
}
