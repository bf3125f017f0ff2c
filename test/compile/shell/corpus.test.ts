/**
 * The differential corpus: each script of fixtures/shell-corpus.yaml runs under real /bin/bash through the stub
 * folder of `shell-harness.ts`; what the stubs log is the ground truth. The analyser must name every program that
 * ran, or call the script unanalysable.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { extractCommands } from '../../../src/compile/shell/index.js';
import { BUILTINS, makeHarness, type Harness } from './harness.js';

interface Case {
  class: string;
  script: string;
  expect: 'analysable' | 'unanalysable';
  ran: string[];
}

const cases = parseYaml(
  readFileSync(new URL('../fixtures/shell-corpus.yaml', import.meta.url), 'utf8'),
) as Case[];

let harness: Harness | undefined;
const notes: string[] = [];

beforeAll(() => {
  harness = makeHarness();
});

afterAll(() => {
  harness?.dispose();
  if (notes.length > 0)
    console.log(
      `shell corpus: listed but did not run (fail-closed over-approximation):\n  ${notes.join('\n  ')}`,
    );
});

describe('extractCommands: the differential corpus against real bash', () => {
  it('has at least 60 cases and covers every class', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const classes = new Set(cases.map((c) => c.class));
    for (const c of [
      'chaining',
      'substitution',
      'process-substitution',
      'compound',
      'arithmetic',
      'time',
      'definition',
      'wrapper',
      'git',
      'redirect',
      'heredoc',
      'assignment',
      'name',
      'parse-error',
    ])
      expect(classes).toContain(c);
  });

  it.each(cases.map((c, i) => [i, c.class, c.script, c] as const))('#%i %s: %j', (_i, _class, script, c) => {
    const truth = harness!.run(script);
    // The stubs work: what the case says ran, ran.
    for (const name of c.ran) expect(truth, `ground truth of ${JSON.stringify(script)}`).toContain(name);
    const analysis = extractCommands(script);
    const reported = new Set(analysis.commands.map((cmd) => cmd.name));
    const reasons = analysis.unanalysable.map((r) => `${r.kind}: ${r.message}`);
    if (c.expect === 'analysable') {
      expect(reasons, `reasons for ${JSON.stringify(script)}`).toEqual([]);
      // Fully explained: every program bash ran is listed.
      for (const name of truth)
        expect([...reported], `programs of ${JSON.stringify(script)}`).toContain(name);
    } else {
      expect(reasons.length, `unanalysable: ${JSON.stringify(script)}`).toBeGreaterThan(0);
    }
    for (const name of reported)
      if (!truth.includes(name) && !BUILTINS.has(name)) notes.push(`${JSON.stringify(script)}: ${name}`);
  });
});
