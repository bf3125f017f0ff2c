// @ts-check
/**
 * The reference generator: every page of docs/reference/ as text, computed from the sources of truth (schemas,
 * rule metadata, event catalogue, TSDoc, command specs) and the built package in `dist/`. Deterministic: no
 * dates, no absolute paths, stable order, so a second run gives the same bytes.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiPage } from './api.mjs';
import { cliPage } from './cli.mjs';
import { configurationPage } from './configuration.mjs';
import { lintRulesPage } from './lint-rules.mjs';
import { policyLanguagePage } from './policy-language.mjs';
import { servicesPage } from './services.mjs';
import { sessionEventsPage } from './session-events.mjs';
import { generatedNotice, page, table } from './markdown.mjs';
import { openSourceProgram } from './ts-source.mjs';

/** The folder the pages go to, relative to the repository root. */
export const REFERENCE_DIR = 'docs/reference';

/**
 * @param {string} root the repository root
 * @param {string} file a path relative to it
 * @returns {any}
 */
function readJson(root, file) {
  return JSON.parse(readFileSync(join(root, file), 'utf8'));
}

/** The pages, what each answers, and what it is generated from (the index page lists them). */
const INDEX = [
  [
    'policy-language.md',
    'Policy language',
    'every key of a policy document; resolution and composition, with decisions computed by the compiler',
    'schema/policy.schema.json, the compiler',
  ],
  [
    'lint-rules.md',
    'Lint rules',
    'every code `dsh-mode lint` reports, with failing and passing examples',
    'each rule’s `meta`, the load codes',
  ],
  [
    'configuration.md',
    'Configuration',
    'the `cordis.yml` entries: host, mode plugin, models',
    'schema/cordis.schema.json, schema/mode-config.schema.json',
  ],
  ['cli.md', 'Command line', 'every command, flag and exit code', 'the command specs (`--help`)'],
  [
    'api.md',
    'Public API',
    'every name `dsh-mode`, `dsh-mode/compile` and `dsh-mode/engine` export (the API report)',
    'the entry points in package.json, their TSDoc',
  ],
  [
    'session-events.md',
    'Session events',
    'every journal event: payload, surface or log-only, writer and readers',
    'the event catalogue and `SessionEventMap`',
  ],
  [
    'services.md',
    'Services and seams',
    '`ctx.modes`, `ctx.sessions`, `ctx.tools`, … and the events plugins listen to',
    'TSDoc in src/host and src/engine',
  ],
];

/** @returns {string} the index of docs/reference/ */
function indexPage() {
  return page([
    generatedNotice('scripts/docs/generate.mjs'),
    '# Reference',
    'Generated from the sources of truth by `npm run docs`; a test fails when a page is stale. New here? Start with the [guide](../guide.md).',
    table(
      ['Page', 'What it answers', 'Generated from'],
      INDEX.map(([file, title, what, from]) => [`[${title}](${file})`, what, from]),
    ),
  ]);
}

/**
 * Generates every reference page.
 * @param {string} root the repository root
 * @returns {Promise<Map<string, string>>} file name (inside docs/reference) → content, sorted by name
 */
export async function generateReference(root) {
  const program = openSourceProgram(root);
  const pages = new Map([
    ['api.md', apiPage(program)],
    ['cli.md', await cliPage()],
    [
      'configuration.md',
      configurationPage({
        deployment: readJson(root, 'schema/cordis.schema.json'),
        mode: readJson(root, 'schema/mode-config.schema.json'),
        policy: readJson(root, 'schema/policy.schema.json'),
        example: readFileSync(join(root, 'cordis.yml'), 'utf8'),
      }),
    ],
    ['lint-rules.md', lintRulesPage()],
    ['policy-language.md', policyLanguagePage(readJson(root, 'schema/policy.schema.json'))],
    ['services.md', servicesPage(program)],
    ['session-events.md', sessionEventsPage(program)],
  ]);
  for (const name of pages.keys()) {
    if (!INDEX.some(([file]) => file === name)) throw new Error(`docs: ${name} has no entry in the index`);
  }
  pages.set('README.md', indexPage());
  return new Map([...pages].sort(([a], [b]) => (a < b ? -1 : 1)));
}
