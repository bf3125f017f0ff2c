/**
 * What a deployment needs beyond each entry being valid: one `host`, one model, and at most one entry of each
 * plugin (two would register the same cordis service, and the second fails at start). The schema checks entries
 * one by one, so it cannot say this; {@link checkComplete} does, and it is the one check that `lint cordis.yml`,
 * `trust` and the start of `chat`/`acp` all run, so that what lint passes, start accepts.
 * @module
 */
import type { Diagnostic, Range } from '../compile/types.js';
import { diagnostic } from './diagnostic.js';
import type { DeploymentEntry } from './read.js';

/** The entry names that are models (a test holds these equal to the apps' registry of kinds). */
export const MODEL_NAMES: ReadonlySet<string> = new Set(['demo', 'openai', 'scripted']);

const START: Range = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

/** Options of {@link checkComplete}. */
export interface CompleteOptions {
  /** The command line replaces the deployment's model (`--model-script`): the file's models are not counted. */
  modelReplaced?: boolean;
}

/**
 * Checks that a deployment can start: a `host`, exactly one model, no plugin twice.
 * @param entries the deployment's entries (read without errors), in file order
 * @param file the deployment file, for what is missing (reported at its first line)
 * @param options whether the model comes from the command line
 * @returns one error per problem, at the entry's `name` when there is one
 */
export function checkComplete(
  entries: readonly DeploymentEntry[],
  file: string,
  options: CompleteOptions = {},
): Diagnostic[] {
  const errors: Diagnostic[] = [];
  const at = (message: string, entry: DeploymentEntry | undefined, help: string): void =>
    void errors.push(
      diagnostic('incomplete-deployment', message, entry?.file ?? file, [], entry?.range ?? START, help),
    );
  if (!entries.some((e) => e.name === 'host')) {
    at('the deployment has no `host` entry', undefined, 'add `- name: host`');
  }
  const models = entries.filter((e) => MODEL_NAMES.has(e.name));
  if (!options.modelReplaced) {
    if (models.length === 0) {
      at(
        'the deployment has no model: add `- name: demo` (the scripted walk-through), `- name: scripted` or `- name: openai`',
        undefined,
        'add `- name: demo`, `- name: scripted` (config.script) or `- name: openai`',
      );
    }
    for (const extra of models.slice(1)) {
      at(`a deployment has one model; \`${extra.id}\` is a second one`, extra, 'remove one of them');
    }
  }
  const seen = new Set<string>();
  for (const entry of entries) {
    if (MODEL_NAMES.has(entry.name)) continue;
    if (seen.has(entry.name)) {
      at(
        `a deployment has one \`${entry.name}\` entry; \`${entry.id}\` is a second one`,
        entry,
        `remove one of them: a second \`${entry.name}\` would register the same service and fail to start`,
      );
    }
    seen.add(entry.name);
  }
  return errors;
}
