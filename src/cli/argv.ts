/**
 * A small argv parser: long options (`--name value`, `--name=value`, boolean `--flag`), a few short aliases,
 * `--` to end options, and positionals. Every mistake is a {@link UsageError} with a clear message (an unknown
 * option gets a did-you-mean), never a silent default. Kept tiny and dependency-free so `dsh-mode` starts fast.
 * @module
 */
import { suggest } from '../compile/suggest.js';
import { UsageError } from './errors.js';

/** One option a command accepts. */
export interface OptionSpec {
  /** The long name without dashes, for example `max-warnings` or `no-builtin`. */
  name: string;
  type: 'string' | 'boolean';
  /** A one-letter alias without the dash. */
  short?: string;
  /** The value's placeholder in help text, for example `N` or `CATALOG`. */
  value?: string;
  /** Allowed values, checked by the parser. */
  choices?: readonly string[];
  /** One line for help text. */
  description: string;
}

/** A parsed command line: option values by long name, and positionals in order. */
export interface ParsedArgs {
  options: Map<string, string | true>;
  positionals: string[];
}

/**
 * The value of a string option, or undefined when it was not given (or is a flag).
 * @param args the parsed command line
 * @param name the option's long name
 * @returns its value
 */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

const HELP: OptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'show this help' };

/**
 * Parses arguments against a command's options (`--help` is always accepted).
 * @param argv the arguments after the command name
 * @param specs the command's options
 * @returns the options and positionals
 * @throws UsageError on an unknown option, a missing value or a value outside `choices`
 */
export function parseArgv(argv: readonly string[], specs: readonly OptionSpec[]): ParsedArgs {
  const all = [...specs, HELP];
  const options = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      for (const rest of argv.slice(i + 1)) positionals.push(rest);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const written = eq === -1 ? arg : arg.slice(0, eq);
    const spec = arg.startsWith('--')
      ? all.find((s) => s.name === written.slice(2))
      : all.find((s) => s.short !== undefined && s.short === written.slice(1));
    if (spec === undefined) {
      const near = suggest(
        written.replace(/^-+/, ''),
        all.map((s) => s.name),
      );
      throw new UsageError(
        `unknown option \`${written}\``,
        near.length > 0 ? `did you mean \`--${near[0]}\`?` : undefined,
      );
    }
    if (spec.type === 'boolean') {
      if (eq !== -1) throw new UsageError(`option \`--${spec.name}\` takes no value`);
      options.set(spec.name, true);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !(argv[i + 1]!.startsWith('-') && argv[i + 1] !== '-')) value = argv[++i];
    if (value === undefined || value === '') {
      throw new UsageError(`option \`--${spec.name}\` needs a value${spec.value ? ` (${spec.value})` : ''}`);
    }
    if (spec.choices && !spec.choices.includes(value)) {
      throw new UsageError(
        `option \`--${spec.name}\` does not accept \`${value}\``,
        `use one of ${spec.choices.map((c) => `\`${c}\``).join(', ')}`,
      );
    }
    options.set(spec.name, value);
  }
  return { options, positionals };
}

/**
 * Renders the options block of a help text, aligned.
 * @param specs the options
 * @returns lines, `--help` included
 */
export function formatOptions(specs: readonly OptionSpec[]): string {
  const rows = [...specs, HELP].map((s) => {
    const flag = `${s.short ? `-${s.short}, ` : '    '}--${s.name}${s.value ? ` ${s.value}` : ''}`;
    const choices = s.choices ? ` (${s.choices.join(' | ')})` : '';
    return [flag, `${s.description}${choices}`] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join('\n');
}
