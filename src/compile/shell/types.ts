/**
 * The analyser's public types: what a shell script runs, as seen before it runs. The parser behind them is an
 * implementation detail (see `docs/argument-rules.md`); nothing here names its types.
 */

/** One word of a simple command, dequoted. */
export interface ShellWord {
  /** The word as written, quotes included. */
  readonly text: string;
  /** The dequoted value; meaningful only when `known`. */
  readonly value: string;
  /**
   * Whether the value is fully known before the script runs: false for a word with a parameter or command
   * expansion, backticks, an unquoted glob, braces or `~`, and for words a wrapper fills in at run time (`{}` of
   * `find -exec`, the arguments `xargs` appends).
   */
  readonly known: boolean;
}

/** A span of the top-level script, as 0-based offsets and the 1-based line and column of its start. */
export interface ShellSpan {
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

/** A program the script runs (a builtin counts too), with the words it runs with. */
export interface SimpleCommand {
  /** The command name: the basename of the first word (`/bin/rm` → `rm`). */
  readonly name: string;
  /** The name as written when it contains `/` (`/bin/rm`); absent otherwise. */
  readonly path?: string;
  /** All words, the name first. */
  readonly words: readonly ShellWord[];
  /** The command's source text (for a command inside `bash -c '…'` or `eval`, the text inside that string). */
  readonly text: string;
  /** Where it is in the top-level script; a command inside a string (`bash -c`, `eval`) spans that string. */
  readonly span: ShellSpan;
  /** The wrappers it runs under, outermost first (`sudo env rm` → `rm` has `['sudo', 'env']`). */
  readonly via: readonly string[];
  /** Index in `commands` of the wrapper that runs it directly, when it has one. */
  readonly parent?: number;
}

/** A redirection, as written. */
export interface ShellRedirect {
  readonly operator: string;
  /** The file descriptor it applies to, when written (`2>`). */
  readonly fd?: number;
  /** The target word (a here-document's delimiter). */
  readonly target: ShellWord;
  /** Whether it writes or opens for writing (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&FILE`). */
  readonly output: boolean;
  /** Whether the analyser accepts it: input, a duplicated or closed descriptor, or output to `/dev/null`. */
  readonly accepted: boolean;
  readonly span: ShellSpan;
}

/** Why a script cannot be fully explained; a closed set. */
export type UnanalysableKind =
  | 'parse-error'
  | 'expansion' // a command name or a wrapper argument whose value is not known
  | 'wrapper' // a wrapper form, option or runner the analyser does not model
  | 'definition' // a function or alias definition
  | 'redirect' // an output redirection to anything but /dev/null or a descriptor
  | 'heredoc-interpreter' // a here-document or here-string fed to an interpreter
  | 'assignment' // the script assigns a variable: never allowed
  | 'shell-state' // a builtin that changes how later commands resolve or run (set, shopt, hash, source, trap…)
  | 'coproc'
  | 'arithmetic' // a command substitution inside an arithmetic context
  | 'unsupported' // a construct the analyser does not model
  | 'limit'; // nesting beyond the analyser's depth limit

/** One reason a script is unanalysable, in words a user can read. */
export interface UnanalysableReason {
  readonly kind: UnanalysableKind;
  /** One lowercase sentence naming the construct, e.g. "a command name with an expansion: `$X`". */
  readonly message: string;
  readonly span: ShellSpan;
}

/** Everything the analyser found in one script. */
export interface ScriptAnalysis {
  /** Every simple command, in source order; a wrapper comes before the command it runs. */
  readonly commands: readonly SimpleCommand[];
  readonly redirects: readonly ShellRedirect[];
  /** Empty when the script is fully explained; otherwise it must never be allowed. */
  readonly unanalysable: readonly UnanalysableReason[];
}
