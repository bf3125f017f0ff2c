/**
 * The errors commands may throw. A {@link UsageError} is the user's mistake on the command line (exit 2 with the
 * command's usage); anything else that escapes a command is a bug, reported by `main.ts` as an internal error.
 * Expected outcomes (findings, an unknown mode, a file that cannot load) are not errors: they are reports.
 * @module
 */

/** A command-line mistake: a missing argument, an unknown option, a bad value. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** Advice printed after the message, for example a did-you-mean. */
  readonly help: string | undefined;

  /**
   * @param message one lowercase sentence, values in backticks
   * @param help optional advice
   */
  constructor(message: string, help?: string) {
    super(message);
    this.help = help;
  }
}
