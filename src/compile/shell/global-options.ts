/**
 * Global options: the options a program reads before its subcommand (`git -C DIR -c K=V --no-pager push`), as
 * data, one table per program. `readGlobalOptions` reads them exactly as the program does and gives the command's
 * words without them (`git push`), so a deny or ask pattern written for the subcommand (`git push **`) also sees
 * the command when global options stand before it. Allow patterns never see this form: skipping options only ever
 * adds matches, and an allow must hold for the words as written.
 *
 * The reading fails closed. Where a word before the subcommand is an option the table does not know (or a word
 * whose value is not known, which could be any option), the subcommand cannot be placed, and the reading says
 * so (`unknown`): every deny and ask pattern of that program is then assumed to match.
 *
 * Each table is read from the program's own source or `--help`, in its exact forms only: a form the program
 * accepts that the table does not list (a bundle, an attached short value) is an unknown option, never a guess.
 * @module
 */
import type { ShellWord } from './types.js';

/** One program's global options. */
export interface GlobalOptions extends ExactOptions {
  /** Options that end the options and stand for a subcommand (git reads `--help` as `help`). */
  readonly commands?: Readonly<Record<string, string>>;
  /** Options that make the program run in, or read, another folder than the current one (for the workspace check). */
  readonly moves?: readonly string[];
}

/**
 * git 2.39's `handle_options` in `git.c` (with the later `--no-lazy-fetch`, `--attr-source` and `--no-advice`):
 * `-c` and `-C` take the next word (`-cK=V` is an error), long ones the next word or `=VALUE`.
 */
const GIT: GlobalOptions = {
  flags: [
    '-p',
    '--paginate',
    '-P',
    '--no-pager',
    '--no-replace-objects',
    '--bare',
    '--literal-pathspecs',
    '--no-literal-pathspecs',
    '--glob-pathspecs',
    '--noglob-pathspecs',
    '--icase-pathspecs',
    '--no-optional-locks',
    '--no-lazy-fetch',
    '--no-advice',
    // These three print a path and exit: nothing after them runs, so skipping them only adds matches.
    '--html-path',
    '--man-path',
    '--info-path',
  ],
  values: [
    '-C',
    '-c',
    '--git-dir',
    '--work-tree',
    '--namespace',
    '--super-prefix',
    '--config-env',
    '--attr-source',
    '--shallow-file',
  ],
  // `--exec-path` alone prints a path and exits; `--list-cmds=…` lists commands and exits.
  optionalValues: ['--exec-path', '--list-cmds'],
  commands: { '--help': 'help', '-h': 'help', '--version': 'version', '-v': 'version' },
  moves: ['-C', '--git-dir', '--work-tree', '--bare'],
};

/**
 * docker 28's global options (`docker --help`); the root command does not read options after its subcommand.
 * Booleans written `--tls=false`, bundles (`-Dc x`) and attached values (`-cx`) are unknown, so they fail closed.
 */
const DOCKER: GlobalOptions = {
  flags: ['-D', '--debug', '--tls', '--tlsverify'],
  values: [
    '--config',
    '-c',
    '--context',
    '-H',
    '--host',
    '-l',
    '--log-level',
    '--tlscacert',
    '--tlscert',
    '--tlskey',
  ],
  commands: { '-v': 'version', '--version': 'version', '-h': 'help', '--help': 'help' },
};

/** kubectl 1.x's global options (`kubectl options`); before the subcommand they are read as here. */
const KUBECTL: GlobalOptions = {
  flags: [
    '--disable-compression',
    '--insecure-skip-tls-verify',
    '--match-server-version',
    '--warnings-as-errors',
  ],
  values: [
    '--as',
    '--as-group',
    '--as-uid',
    '--cache-dir',
    '--certificate-authority',
    '--client-certificate',
    '--client-key',
    '--cluster',
    '--context',
    '--kubeconfig',
    '--log-flush-frequency',
    '-n',
    '--namespace',
    '--password',
    '--profile',
    '--profile-output',
    '--request-timeout',
    '-s',
    '--server',
    '--tls-server-name',
    '--token',
    '--user',
    '--username',
    '-v',
    '--v',
    '--vmodule',
  ],
  commands: { '-h': 'help', '--help': 'help' },
};

/**
 * Package managers read configuration options before their subcommand (`npm --otp=1 publish`), an open set
 * whose arity depends on each key's type: none is listed, so any option before the subcommand fails closed.
 */
const UNLISTED: GlobalOptions = { flags: [], values: [] };

/** The programs whose global options are read, by command name. */
export const GLOBAL_OPTIONS: ReadonlyMap<string, GlobalOptions> = new Map([
  ['git', GIT],
  ['docker', DOCKER],
  ['kubectl', KUBECTL],
  ['npm', UNLISTED],
  ['pnpm', UNLISTED],
  ['yarn', UNLISTED],
  ['bun', UNLISTED],
]);

/** Options in their exact forms: no bundles, no attached short values, no abbreviations. */
export interface ExactOptions {
  /** Options that take no value, each exactly as written (`--no-pager`). */
  readonly flags: readonly string[];
  /** Options that take a value: the next word, whatever it is; a long one (`--git-dir`) also as `--git-dir=VALUE`. */
  readonly values: readonly string[];
  /** Long options that take a value only after `=` in the same word, or none (git's `--exec-path[=DIR]`). */
  readonly optionalValues?: readonly string[];
  /** Whether `--` ends the options (it is the next word's index); otherwise it is an unknown option. */
  readonly endsWithDashDash?: boolean;
}

/** What {@link readExactOptions} read. */
export interface ExactReading {
  /**
   * The options read, each by its name as written (`-C`, `--git-dir` for `--git-dir=x`), with its value and, when
   * the value is a word of its own, that word's index.
   */
  readonly options: readonly {
    readonly name: string;
    readonly value?: ShellWord;
    readonly valueAt?: number;
  }[];
  /** The index of the first word after the options (words.length when there is none). */
  readonly next: number;
  /** Set when a `--` ended the options (see {@link ExactOptions.endsWithDashDash}). */
  readonly ended?: true;
  /** The index of a word where an option may stand that is no option the spec knows, or not known at all. */
  readonly unknown?: number;
}

/**
 * Reads options in their exact forms from `words[from]` on, up to the first word that does not start with `-`.
 * @param words a command's words
 * @param from the first word to read
 * @param spec the options
 * @returns the options read and where they end, or the word that could not be read
 */
export function readExactOptions(
  words: readonly ShellWord[],
  from: number,
  spec: ExactOptions,
): ExactReading {
  const options: { name: string; value?: ShellWord; valueAt?: number }[] = [];
  let i = from;
  while (i < words.length) {
    const w = words[i]!;
    if (!w.known) return { options, next: i, unknown: i };
    const v = w.value;
    if (!v.startsWith('-') || v === '-') break;
    if (v === '--' && spec.endsWithDashDash) return { options, next: i + 1, ended: true };
    const eq = v.startsWith('--') ? v.indexOf('=') : -1;
    const name = eq < 0 ? v : v.slice(0, eq);
    const attached = eq < 0 ? undefined : { text: v.slice(eq + 1), value: v.slice(eq + 1), known: true };
    if (eq < 0 && spec.flags.includes(v)) {
      options.push({ name });
      i++;
    } else if (spec.optionalValues?.includes(name)) {
      options.push(attached === undefined ? { name } : { name, value: attached });
      i++;
    } else if (spec.values.includes(name)) {
      const value = attached ?? words[i + 1];
      if (value === undefined) options.push({ name });
      else options.push(attached === undefined ? { name, value, valueAt: i + 1 } : { name, value });
      i += attached === undefined ? 2 : 1;
    } else return { options, next: i, unknown: i };
  }
  return { options, next: Math.min(i, words.length) };
}

/** A command's words read past its program's global options. */
export interface GlobalReading {
  /** The name, then the subcommand and what follows it (an option read as a subcommand becomes that word). */
  readonly words: readonly ShellWord[];
  /** The global options read, each by its name as written (`-C`, `--git-dir` for `--git-dir=x`). */
  readonly options: readonly string[];
  /**
   * The first word before the subcommand that is no option the table knows, or not known at all: from there on
   * the subcommand cannot be placed, and `words` is the name alone.
   */
  readonly unknown?: ShellWord;
}

/**
 * Reads a command's global options, as its program does.
 * @param name the command's name (the basename of its first word)
 * @param words the command's words, the name first
 * @returns the reading, or undefined when the program has no table
 */
export function readGlobalOptions(name: string, words: readonly ShellWord[]): GlobalReading | undefined {
  const spec = GLOBAL_OPTIONS.get(name);
  if (spec === undefined || words.length === 0) return undefined;
  const read = readExactOptions(words, 1, spec);
  const options = read.options.map((o) => o.name);
  const at = read.unknown ?? read.next;
  const word = words[at];
  const asCommand =
    word?.known && spec.commands && Object.hasOwn(spec.commands, word.value)
      ? spec.commands[word.value]
      : undefined;
  if (asCommand !== undefined) {
    const command: ShellWord = { text: word!.text, value: asCommand, known: true };
    return { words: [words[0]!, command, ...words.slice(at + 1)], options };
  }
  if (read.unknown !== undefined) return { words: words.slice(0, 1), options, unknown: words[read.unknown]! };
  return { words: [words[0]!, ...words.slice(read.next)], options };
}
