// @ts-check
/**
 * The reference generator: every page of docs/reference/ as text, computed from the sources of truth (schemas,
 * rule metadata, event catalogue, TSDoc, command specs) and the built package in `dist/`. Deterministic: no
 * dates, no absolute paths, stable order, so a second run gives the same bytes.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPage } from './cli.mjs';
import { configurationPage } from './configuration.mjs';
import { lintRulesPage } from './lint-rules.mjs';
import { policyLanguagePage } from './policy-language.mjs';
import { servicesPage } from './services.mjs';
import { sessionEventsPage } from './session-events.mjs';
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

/**
 * Generates every reference page.
 * @param {string} root the repository root
 * @returns {Promise<Map<string, string>>} file name (inside docs/reference) → content, sorted by name
 */
export async function generateReference(root) {
  const program = openSourceProgram(root);
  const pages = new Map([
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
  return new Map([...pages].sort(([a], [b]) => (a < b ? -1 : 1)));
}
