/**
 * Command-line arguments: long options (`--name value`, `--name=value`, boolean `--flag`), a few short aliases,
 * `--` to end options, and positionals, tokenised by `node:util` `parseArgs` and checked against each command's
 * option table. Every mistake is a {@link UsageError} with a clear message (an unknown option gets a
 * did-you-mean), never a silent default.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { suggest } from '../compile/index.js';
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
 * Parses arguments against a command's options (`--help` is always accepted). Tokens come from `node:util`
 * `parseArgs` (non-strict, so that every mistake gets our wording and a did-you-mean instead of Node's).
 * @param argv the arguments after the command name
 * @param specs the command's options
 * @returns the options and positionals
 * @throws UsageError on an unknown option, a missing value or a value outside `choices`
 */
export function parseArgv(argv: readonly string[], specs: readonly OptionSpec[]): ParsedArgs {
  const all = [...specs, HELP];
  const config: ParseArgsConfig['options'] = {};
  for (const spec of all)
    config[spec.name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}) };
  const { tokens } = parseArgs({
    args: [...argv],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options = new Map<string, string | true>();
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = all.find((s) =>
      token.rawName.startsWith('--') ? `--${s.name}` === token.rawName : s.short === token.rawName.slice(1),
    );
    if (spec === undefined) {
      const near = suggest(
        token.rawName.replace(/^-+/, ''),
        all.map((s) => s.name),
      );
      throw new UsageError(
        `unknown option \`${token.rawName}\``,
        near.length > 0 ? `did you mean \`--${near[0]}\`?` : undefined,
      );
    }
    if (spec.type === 'boolean') {
      if (token.inlineValue) throw new UsageError(`option \`--${spec.name}\` takes no value`);
      options.set(spec.name, true);
      continue;
    }
    // A following option is not a value (`--tools --format json`); `-` is (stdin, by convention).
    const value = token.value;
    const swallowed = !token.inlineValue && value !== undefined && value.startsWith('-') && value !== '-';
    if (value === undefined || value === '' || swallowed) {
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
