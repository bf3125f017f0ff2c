/**
 * `dsh-mode lint --format sarif|github`, end to end in process through `main()`, in a temp folder. The
 * SARIF log is validated against the official SARIF 2.1.0 schema (vendored, see test/fixtures/README.md).
 */
import { describe, expect, it } from 'vitest';
import { validateSarif } from './sarif-schema.js';
import { runCli } from './run-in-process.js';
import { json, makeTree } from './run.js';

const POLICY = [
  'mode: review', //                 1
  'tools:', //                       2
  '  "mcp__*": deny', //             3
  '  "*_read": allow', //            4
  '  exit_plan_mode: allow', //      5
  'tests:', //                       6
  '  - { tool: read, expect: allow }', // 7
  '',
].join('\n');

describe('dsh-mode lint --format sarif', () => {
  it('prints a valid SARIF 2.1.0 log with rule metadata and exits 1 on errors', async () => {
    const dir = makeTree({
      'policies/p.yaml': POLICY,
      'policies/typo.yaml': 'mode: other\ntool:\n  read: allow\n',
    });
    const result = await runCli(['lint', '--format', 'sarif', '--no-builtin'], { cwd: dir });
    expect(result.code).toBe(1);
    const log = json(result) as any;
    expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver.name).toBe('dsh-mode');
    const results = run.results.map((r: any) => [
      r.ruleId,
      r.level,
      r.locations[0].physicalLocation.artifactLocation.uri,
      r.locations[0].physicalLocation.artifactLocation.uriBaseId,
      r.locations[0].physicalLocation.region.startLine,
    ]);
    expect(results).toEqual([
      ['conflicting-globs', 'error', 'policies/p.yaml', '%SRCROOT%', 4],
      ['exit-without-approval', 'warning', 'policies/p.yaml', '%SRCROOT%', 5],
      ['failing-test', 'error', 'policies/p.yaml', '%SRCROOT%', 7],
      ['unknown-key', 'error', 'policies/typo.yaml', '%SRCROOT%', 2],
    ]);
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(run.originalUriBaseIds['%SRCROOT%'].uri).toMatch(/^file:\/\/\/.*\/$/);
  });

  it('prints a valid log with no results for clean policies and exits 0', async () => {
    const dir = makeTree({
      'policies/ok.yaml': 'mode: review\ntools:\n  read: allow\n  exit_plan_mode: ask\ndefault: deny\n',
    });
    const result = await runCli(['lint', '--format', 'sarif'], { cwd: dir });
    expect(result.code).toBe(0);
    const log = json(result) as any;
    expect(validateSarif(log)).toBe(true);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].tool.driver.rules.length).toBeGreaterThan(10);
  });
});

describe('dsh-mode lint --format github', () => {
  it('prints one workflow command per finding with the rule as title', async () => {
    const dir = makeTree({ 'policies/p.yaml': POLICY });
    const result = await runCli(['lint', '--format', 'github', '--no-builtin'], { cwd: dir });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^::error file=policies\/p\.yaml,line=4,col=3,endLine=4,endColumn=\d+,title=conflicting-globs::.+/,
    );
    expect(lines[1]).toMatch(
      /^::warning file=policies\/p\.yaml,line=5,col=3,.*title=exit-without-approval::/,
    );
    expect(lines[2]).toMatch(/^::error file=policies\/p\.yaml,line=7,.*title=failing-test::/);
  });
});
