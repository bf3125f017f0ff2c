/**
 * `parseArgv`: the option tables of the commands over `node:util` `parseArgs`, with our own messages.
 */
import { describe, expect, it } from 'vitest';
import { parseArgv, type OptionSpec } from '../../src/cli/argv.js';
import { UsageError } from '../../src/cli/errors.js';

const SPECS: OptionSpec[] = [
  { name: 'tools', type: 'string', value: 'CATALOG', description: 'a catalog' },
  { name: 'format', type: 'string', value: 'NAME', choices: ['text', 'json'], description: 'format' },
  { name: 'no-builtin', type: 'boolean', description: 'no built-in' },
  { name: 'max-warnings', type: 'string', short: 'w', value: 'N', description: 'limit' },
];

function parsed(argv: string[]) {
  const { options, positionals } = parseArgv(argv, SPECS);
  return { options: Object.fromEntries(options), positionals };
}

function usage(argv: string[]): { message: string; help: string | undefined } {
  try {
    parseArgv(argv, SPECS);
  } catch (error) {
    if (error instanceof UsageError) return { message: error.message, help: error.help };
    throw error;
  }
  throw new Error(`no usage error for ${JSON.stringify(argv)}`);
}

describe('parseArgv', () => {
  it('reads `--name value`, `--name=value`, flags, short aliases and positionals in order', () => {
    expect(parsed(['a', '--tools', 't.json', 'b', '--format=json', '--no-builtin', '-w', '3', '-'])).toEqual({
      options: { tools: 't.json', format: 'json', 'no-builtin': true, 'max-warnings': '3' },
      positionals: ['a', 'b', '-'],
    });
  });

  it('takes everything after `--` as positionals, and the last of a repeated option', () => {
    expect(parsed(['--tools', 'a', '--tools', 'b', '--', '--format', '-x'])).toEqual({
      options: { tools: 'b' },
      positionals: ['--format', '-x'],
    });
  });

  it('always accepts --help and -h', () => {
    expect(parsed(['-h']).options).toEqual({ help: true });
    expect(parsed(['--help']).options).toEqual({ help: true });
  });

  it('refuses an unknown option with a did-you-mean', () => {
    expect(usage(['--tols', 'x'])).toEqual({
      message: 'unknown option `--tols`',
      help: 'did you mean `--tools`?',
    });
    expect(usage(['--format-x=1'])).toEqual({
      message: 'unknown option `--format-x`',
      help: 'did you mean `--format`?',
    });
    expect(usage(['-z'])).toEqual({ message: 'unknown option `-z`', help: undefined });
  });

  it('refuses a flag with a value, and a string option without one', () => {
    expect(usage(['--no-builtin=yes'])).toEqual({
      message: 'option `--no-builtin` takes no value',
      help: undefined,
    });
    for (const argv of [['--tools'], ['--tools='], ['--tools', '--no-builtin'], ['--tools', '-w']]) {
      expect(usage(argv)).toEqual({ message: 'option `--tools` needs a value (CATALOG)', help: undefined });
    }
  });

  it('refuses a value outside the choices, naming them', () => {
    expect(usage(['--format', 'xml'])).toEqual({
      message: 'option `--format` does not accept `xml`',
      help: 'use one of `text`, `json`',
    });
  });

  it('treats prototype names as unknown options, not as table entries', () => {
    expect(usage(['--constructor'])).toEqual({ message: 'unknown option `--constructor`', help: undefined });
    expect(usage(['--__proto__=1']).message).toBe('unknown option `--__proto__`');
  });
});
