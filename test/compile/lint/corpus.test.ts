/**
 * Lint's findings on generated corpora are pinned line by line in `fixtures/lint-corpus.findings.txt`, so a change
 * to a finding, a message, a help text or a range shows as a diff. When findings change on purpose, regenerate the
 * file with `npx vitest run test/compile/lint/corpus.test.ts -u` and review the diff.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintPolicies } from '../../../src/compile/lint/lint.js';
import { BUILTIN_PLAN_PATH, loadPolicySources, loadPolicyText } from '../../../src/compile/language/load.js';
import type { Diagnostic, SourceDocument } from '../../../src/compile/types.js';
import { corpusCatalog, corpusTexts } from './corpus.js';

const FIXTURE = new URL('../fixtures/lint-corpus.findings.txt', import.meta.url);

/** One finding per line, the built-in plan's absolute path made portable. */
export function findingLines(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const r = d.range;
    const at = r ? `${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column}` : '-';
    const line = `${d.file}:${at} ${d.severity} ${d.code}/${d.messageId} ${JSON.stringify(d.path)} ${d.message} | ${d.help}`;
    return line.split(BUILTIN_PLAN_PATH).join('<builtin>');
  });
}

/** The corpora: several modes of a few documents, and two modes of many (long prefixes). */
export async function corpusRuns(): Promise<{ name: string; lines: string[] }[]> {
  const builtin = (await loadPolicySources([])).documents;
  const runs: { name: string; lines: string[] }[] = [];
  for (const [name, seed, count, modes] of [
    ['four modes', 7, 40, 4],
    ['two modes', 11, 60, 2],
  ] as const) {
    const documents: SourceDocument[] = [...builtin];
    for (const { file, text } of corpusTexts(seed, count, modes)) {
      const loaded = loadPolicyText(text, file);
      if (loaded.documents.length !== 1) throw new Error(`${file}: ${JSON.stringify(loaded.diagnostics)}`);
      documents.push(...loaded.documents);
    }
    const input = { documents, diagnostics: [] };
    runs.push({ name: `${name}, no catalog`, lines: findingLines(lintPolicies(input)) });
    runs.push({
      name: `${name}, catalog`,
      lines: findingLines(lintPolicies(input, { catalog: corpusCatalog() })),
    });
  }
  return runs;
}

/** The fixture's format: `## run name` then its finding lines. */
export function renderRuns(runs: readonly { name: string; lines: string[] }[]): string {
  return runs.map((r) => [`## ${r.name}`, ...r.lines].join('\n')).join('\n') + '\n';
}

describe('lint on generated corpora', () => {
  it('reports exactly the pinned findings', async () => {
    await expect(renderRuns(await corpusRuns())).toMatchFileSnapshot('../fixtures/lint-corpus.findings.txt');
  });

  it('finds something for every rule, so the pin covers them all', () => {
    const codes = new Set(
      readFileSync(FIXTURE, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('##') && l.length > 0)
        .map((l) => / \w+ ([\w-]+)\//.exec(l)?.[1]),
    );
    expect([...codes].sort()).toEqual([
      'conflicting-globs',
      'default-decided',
      'exit-without-approval',
      'failing-test',
      'invalid-glob',
      'no-op-rule',
      'override',
      'too-many-alternatives',
      'trap-mode',
      'unmatched-rule',
    ]);
  });
});
