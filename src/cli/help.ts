/**
 * Help text, rendered from each command's spec (which lives beside the command) and the command table.
 * @module
 */
import { formatOptions } from './argv.js';
import type { CommandSpec } from './command.js';
import { commands } from './commands/index.js';

/**
 * The help of one command.
 * @param spec the command's spec
 * @returns the help text, ending in a newline
 */
export function renderCommandHelp(spec: CommandSpec): string {
  const examples = spec.examples?.length
    ? `\nExamples:\n${spec.examples.map((e) => `  dsh-mode ${e}`).join('\n')}\n`
    : '';
  return `Usage: dsh-mode ${spec.usage}\n\n${spec.summary}\n\n${spec.description}\n\nOptions:\n${formatOptions(spec.options)}\n${examples}`;
}

/**
 * The top-level help: every command with its summary.
 * @returns the help text, ending in a newline
 */
export function renderMainHelp(): string {
  const names = Object.keys(commands);
  const width = Math.max(...names.map((n) => n.length));
  const rows = names.map((n) => `  ${n.padEnd(width)}  ${commands[n]!.summary}`).join('\n');
  return [
    'Usage: dsh-mode <command> [options]',
    '',
    'Declarative policies for AI coding-agent session modes.',
    '',
    'Commands:',
    rows,
    '',
    'Options:',
    '  -h, --help     show help (also `dsh-mode <command> --help`)',
    '  -v, --version  print the version',
    '',
  ].join('\n');
}
