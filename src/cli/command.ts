/**
 * What a command module provides to `main.ts`: its help text (kept beside the command, so a docs generator can
 * reuse it) and an `execute` adapter that turns parsed arguments into a report and the report into text and an
 * {@link Outcome}. Only `main.ts` maps outcomes to exit codes and writes to the streams.
 * @module
 */
import type { OptionSpec, ParsedArgs } from './argv.js';
import type { FormatContext } from './report.js';

/** The help of one command. */
export interface CommandSpec {
  name: string;
  /** One line, shown by `dsh-mode --help`. */
  summary: string;
  /** The synopsis after `dsh-mode`, for example `lint [PATH...] [options]`. */
  usage: string;
  /** Paragraphs explaining the command, its outputs and exit codes. */
  description: string;
  options: readonly OptionSpec[];
  /** Example invocations (without the leading `dsh-mode`). */
  examples?: readonly string[];
}

/**
 * How a command ended, independent of exit codes:
 * `ok` (0), `findings` (1: lint errors, warnings over the limit), `unknown-mode` (1), `load-failed` (1),
 * `io` (2: a path or catalog that cannot be read), `usage` (2), `interrupted` (130: ended by Ctrl-C, as a shell
 * reports SIGINT).
 */
export type OutcomeKind = 'ok' | 'findings' | 'unknown-mode' | 'load-failed' | 'io' | 'usage' | 'interrupted';

/** The result of running a command from the command line: what to print, and how it ended. */
export interface Outcome {
  kind: OutcomeKind;
  stdout?: string;
  stderr?: string;
}

/** The process environment a command may read. Passed in, so tests and `main()` callers control it. */
export interface CliEnv {
  /** The folder the command runs in: relative paths resolve from it. */
  cwd: string;
  /** Whether stdout takes ANSI colours (see `colour.ts`). */
  color: boolean;
  /** The environment variables (`trust` finds its records' folder in them). */
  vars: NodeJS.ProcessEnv;
}

/** What a command runs with: the environment and the format context built from it. */
export type CommandContext = CliEnv & FormatContext;

/** A command module's contract with `main.ts`. */
export interface CliCommand {
  spec: CommandSpec;
  /** Runs the command; throws `UsageError` for command-line mistakes. */
  execute(args: ParsedArgs, env: CommandContext): Promise<Outcome>;
}
