// @ts-check
/**
 * docs/reference/session-events.md: every session event type the host and the engine declare, from the runtime
 * catalogue (`SESSION_EVENT_CATALOG`: surface, writer, readers, description) checked against the declarations
 * (`SessionEventMap` in src/, read with the compiler API: the payload type and its TSDoc). A catalogue that
 * disagrees with the declarations or with `SURFACE_EVENT_TYPES` stops the generator.
 * @module
 */
import { SURFACE_EVENT_TYPES } from '../../dist/host/types.js';
import { SESSION_EVENT_CATALOG } from '../../dist/event-catalog.js';
import { cell, code, fence, generatedNotice, page, slug, table } from './markdown.mjs';
import {
  closeOverSourceTypes,
  collectSourceTypes,
  declarationText,
  sessionEventDeclarations,
} from './ts-source.mjs';

/**
 * Checks the catalogue against the declarations and the surface set.
 * @param {ReturnType<typeof sessionEventDeclarations>} declared
 * @returns {string[]} every disagreement, in words
 */
export function catalogueProblems(declared) {
  /** @type {Record<string, { type: string; surface: string; payload: string }>} */
  const catalogue = SESSION_EVENT_CATALOG;
  const problems = [];
  const names = declared.map((d) => d.type);
  const keys = Object.keys(catalogue);
  for (const name of names) if (!keys.includes(name)) problems.push(`${name} is declared but not catalogued`);
  for (const key of keys) if (!names.includes(key)) problems.push(`${key} is catalogued but not declared`);
  for (const d of declared) {
    const entry = catalogue[d.type];
    if (entry === undefined) continue;
    if (entry.type !== d.type) problems.push(`${d.type}: its entry says type ${entry.type}`);
    if (entry.payload !== d.payload) {
      problems.push(
        `${d.type}: the catalogue says payload ${entry.payload}, ${d.file} declares ${d.payload}`,
      );
    }
    const surface = SURFACE_EVENT_TYPES.has(d.type) ? 'surface' : 'log-only';
    if (entry.surface !== surface)
      problems.push(`${d.type}: the catalogue says ${entry.surface}, SURFACE_EVENT_TYPES says ${surface}`);
  }
  return problems;
}

/**
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @returns {string} the page
 */
export function sessionEventsPage(sp) {
  const order = Object.keys(SESSION_EVENT_CATALOG);
  // Catalogue order: the host's events as `SessionEventMap` lists them, then the engine's.
  const declared = sessionEventDeclarations(sp).sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  const problems = catalogueProblems(declared);
  if (problems.length > 0) throw new Error(`session event catalogue:\n  ${problems.join('\n  ')}`);
  /** @type {Map<string, import('typescript').Declaration>} */
  const types = new Map();
  for (const d of declared) collectSourceTypes(sp, d.typeNode, types);
  closeOverSourceTypes(sp, types);
  const summary = table(
    ['Type', 'Surface', 'Payload', 'Written by'],
    declared.map((d) => {
      const e = SESSION_EVENT_CATALOG[/** @type {keyof typeof SESSION_EVENT_CATALOG} */ (d.type)];
      return [
        `[${code(d.type)}](#${slug(d.type)})`,
        e.surface,
        cell(code(d.payload)),
        cell(e.writer.replace(/ \(.*$/, '')),
      ];
    }),
  );
  const sections = declared.map((d) => {
    const e = SESSION_EVENT_CATALOG[/** @type {keyof typeof SESSION_EVENT_CATALOG} */ (d.type)];
    return [
      `### ${d.type}`,
      e.description,
      d.doc && d.doc !== e.description ? `From the declaration: ${d.doc}` : '',
      fence('ts', `'${d.type}': ${d.payload}`),
      [
        `- ${e.surface === 'surface' ? '**Surface**: part of the model transcript' : '**Log-only**: never sent to the model'}`,
        `- Declared in: ${code(d.file)}`,
        `- Written by: ${e.writer}`,
        `- Read by:${e.readers.map((/** @type {string} */ r) => `\n  - ${r}`).join('')}`,
      ].join('\n'),
    ]
      .filter((b) => b.length > 0)
      .join('\n\n');
  });
  const typeBlocks = [...types]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, decl]) => `### ${name}\n\n${fence('ts', declarationText(decl))}`);
  return page([
    generatedNotice(
      'src/host/event-catalog.ts, src/engine/event-catalog.ts and the SessionEventMap declarations',
    ),
    '# Session events',
    'A session is an append-only journal of events `{seq, type, data, time}`: `seq` counts from 1, `time` is ISO 8601, and on disk each event is one line of `<workspace>/.dsh/sessions/<id>.jsonl`. Every event lives inside a turn (`turn/start` … `turn/end`). **Surface** events form the model transcript; **log-only** events never reach the model. Listeners see every append on the cordis event `session/event` (see [services](services.md#' +
      slug('session/event') +
      ')).',
    'Plugins add event types by declaration merging on `SessionEventMap` (the engine adds `mode/set`), and add an entry to the catalogue; tsc fails when a declared type has no entry.',
    summary,
    '## Events',
    ...sections,
    '## Payload types',
    'The named types the payloads use, as declared in `src/host/types.ts`.',
    ...typeBlocks,
  ]);
}
