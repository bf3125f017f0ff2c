// @ts-check
/**
 * docs/reference/cli.md: every command, flag and exit code, from the command table (`dist/cli/commands/index.js`)
 * and each command's spec, rendered with the same functions `--help` uses (`renderMainHelp`, `renderCommandHelp`).
 * The exit codes of a command are the `Exit codes:` paragraph of its help; a command whose help has none, or
 * names a code the CLI never returns, stops the generator.
 * @module
 */
import { commands } from '../../dist/cli/commands/index.js';
import { renderCommandHelp, renderMainHelp } from '../../dist/cli/help.js';
import { EXIT_CODES } from '../../dist/cli/main.js';
import { cell, code, fence, generatedNotice, page, plain, table } from './markdown.mjs';

/**
 * The exit codes a command's help states: `Exit codes: 0 …; 1 …; 2 ….`
 * @param {{ name: string; description: string }} spec
 * @returns {{ code: number; when: string }[]}
 */
export function exitCodesOf(spec) {
  const paragraph = spec.description.split(/\n\s*\n/).find((p) => p.startsWith('Exit codes:'));
  if (paragraph === undefined)
    throw new Error(`dsh-mode ${spec.name}: its help states no "Exit codes:" paragraph`);
  const valid = new Set(Object.values(EXIT_CODES));
  return paragraph
    .replace(/^Exit codes:\s*/, '')
    .replace(/\s+/g, ' ')
    .replace(/\.$/, '')
    .split(/;\s*(?=\d+ )/)
    .map((item) => {
      const match = /^(\d+) (.*)$/.exec(item.trim());
      if (!match) throw new Error(`dsh-mode ${spec.name}: cannot read exit code item "${item}"`);
      const exit = Number(match[1]);
      if (!valid.has(exit))
        throw new Error(`dsh-mode ${spec.name}: exit code ${exit} is not one the CLI returns`);
      return { code: exit, when: match[2] ?? '' };
    });
}

/**
 * @param {import('../../dist/cli/argv.js').OptionSpec} o
 */
function flagText(o) {
  return `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.value ? ` ${o.value}` : ''}`;
}

/**
 * @param {import('../../dist/cli/command.js').CommandSpec} spec
 */
function commandSection(spec) {
  const options = [
    ...spec.options,
    { name: 'help', short: 'h', type: 'boolean', description: 'show this help' },
  ];
  const rows = options.map((o) => [
    code(flagText(/** @type {import('../../dist/cli/argv.js').OptionSpec} */ (o))),
    cell(plain(o.description)),
    'choices' in o && o.choices ? o.choices.map(code).join(', ') : '',
  ]);
  const exits = exitCodesOf(spec).map((e) => [code(String(e.code)), cell(plain(e.when))]);
  return [
    `## ${spec.name}`,
    `${spec.summary[0]?.toUpperCase()}${spec.summary.slice(1)}.`,
    fence('text', `dsh-mode ${spec.usage}`),
    table(['Option', 'Description', 'Values'], rows),
    `Exit codes:\n\n${table(['Code', 'When'], exits)}`,
    spec.examples?.length
      ? `Examples:\n\n${fence('sh', spec.examples.map((e) => `dsh-mode ${e}`).join('\n'))}`
      : '',
    `${code(`dsh-mode ${spec.name} --help`)} prints:\n\n${fence('text', renderCommandHelp(spec).trimEnd())}`,
  ]
    .filter((b) => b.length > 0)
    .join('\n\n');
}

/**
 * @returns {Promise<string>} the page
 */
export async function cliPage() {
  const names = Object.keys(commands).sort();
  const specs = [];
  for (const name of names) {
    const command = await /** @type {any} */ (commands)[name].load();
    if (command.spec.name !== name)
      throw new Error(`command table: ${name} loads the command ${command.spec.name}`);
    specs.push(command.spec);
  }
  const outcomes = Object.entries(EXIT_CODES).map(([kind, exit]) => [code(kind), code(String(exit))]);
  return page([
    generatedNotice('the command table and command specs in src/cli (the text `--help` prints)'),
    '# Command line',
    'The `dsh-mode` command (`npx dsh-mode …` in a project that depends on the package). Every command takes `--help`. Options may be written `--name value` or `--name=value`; `--` ends the options. Human output is coloured when stdout is a terminal: `NO_COLOR` turns colour off, `FORCE_COLOR` turns it on even in a pipe, and `FORCE_COLOR=0` turns it off.',
    `${code('dsh-mode --help')} prints:\n\n${fence('text', renderMainHelp().trimEnd())}`,
    `Commands: ${names.map((n) => `[${code(n)}](#${n})`).join(', ')}.`,
    '## Exit codes',
    'Every command ends in one outcome, and one table maps outcomes to exit codes (`EXIT_CODES` in `src/cli/main.ts`): 0 success; 1 findings, an unknown mode or a policy that cannot load; 2 usage errors, unreadable inputs and internal errors; 130 an interactive command ended by Ctrl-C. Each command below says which apply to it.',
    table(['Outcome', 'Exit code'], outcomes),
    ...specs.map(commandSection),
  ]);
}

/** The markers around the README's command summary (`npm run docs` rewrites what is between them). */
export const README_SUMMARY_BEGIN =
  "<!-- cli-summary: generated from each command's usage (the text `--help` prints) by `npm run docs`; regenerate rather than edit -->";
export const README_SUMMARY_END = '<!-- /cli-summary -->';

/**
 * The README's command summary: `dsh-mode USAGE` of every command, in the order `dsh-mode --help` lists them.
 * @returns {Promise<string>} a `text` code block
 */
export async function readmeSummary() {
  const lines = [];
  for (const name of Object.keys(commands)) {
    const command = await /** @type {any} */ (commands)[name].load();
    lines.push(`dsh-mode ${command.spec.usage}`);
  }
  return fence('text', lines.join('\n'));
}

/**
 * The README with a fresh command summary between its markers.
 * @param {string} readme the README's text
 * @returns {Promise<string>} the text to write
 */
export async function withReadmeSummary(readme) {
  const begin = readme.indexOf(README_SUMMARY_BEGIN);
  const end = readme.indexOf(README_SUMMARY_END);
  if (begin === -1 || end < begin)
    throw new Error(`README.md: no ${README_SUMMARY_BEGIN} … ${README_SUMMARY_END}`);
  const head = readme.slice(0, begin + README_SUMMARY_BEGIN.length);
  return `${head}\n${await readmeSummary()}\n${readme.slice(end)}`;
}
