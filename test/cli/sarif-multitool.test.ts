/**
 * `lint --format sarif` checked by Microsoft's official SARIF multitool (`@microsoft/sarif-multitool`, pinned as a
 * devDependency), the validator GitHub's code scanning documentation points to: its `validate` rules go beyond the
 * JSON schema (a rule `name` that only repeats its `id`, a driver without `informationUri`, …). Real outputs of the
 * built binary, clean and with findings, must draw no warning and no error. A log broken on purpose shows the
 * tool does report what it is asked to find, so the clean result is not a validator that says nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dshMode, makeTree, ROOT } from './run.js';

const MULTITOOL = join(ROOT, 'node_modules/@microsoft/sarif-multitool/bin.js');

interface MultitoolResult {
  ruleId: string;
  level?: string;
  message: { id?: string; text?: string; arguments?: string[] };
}

/** Runs `sarif-multitool validate` on a log; returns its warnings and errors as `RULE: arguments` lines. */
function validate(log: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-sarif-'));
  const input = join(dir, 'lint.sarif');
  const output = join(dir, 'validation.sarif');
  writeFileSync(input, log);
  const run = spawnSync(process.execPath, [MULTITOOL, 'validate', input, '-o', output], { encoding: 'utf8' });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  const report = JSON.parse(readFileSync(output, 'utf8')) as { runs: { results?: MultitoolResult[] }[] };
  // A result without `level` is a warning (SARIF's default level).
  return (report.runs[0]?.results ?? [])
    .filter((r) => (r.level ?? 'warning') === 'warning' || r.level === 'error')
    .map((r) => `${r.ruleId}: ${(r.message.arguments ?? [r.message.text ?? '']).join(' ')}`);
}

describe('lint --format sarif, by the official SARIF multitool', () => {
  // The multitool is a self-contained .NET program: a cold start on a loaded machine takes seconds.
  it('a clean run draws no warning and no error', { timeout: 120_000 }, () => {
    const dir = makeTree({ 'policies/review.yaml': 'mode: review\ntools:\n  read: allow\ndefault: deny\n' });
    const run = dshMode(['lint', '--format', 'sarif'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).runs[0].results).toEqual([]);
    expect(validate(run.stdout)).toEqual([]);
  });

  it(
    'a run with findings of every severity and both kinds of code draws no warning and no error',
    { timeout: 120_000 },
    () => {
      const dir = makeTree({
        // An unknown key (a loading code), a syntax error (a one-word code) and lint findings.
        'policies/a.yaml': 'mode: review\ntool:\n  read: allow\n',
        'policies/b.yaml': 'mode: audit\ntools: [read\n',
        'policies/c.yaml':
          'mode: docs\ntools:\n  "mcp__*": deny\n  "*_read": allow\n  read: ask\ndefault: ask\n',
        'policies/d.yaml': 'mode: locked\ndefault: deny\n',
      });
      const run = dshMode(['lint', '--format', 'sarif'], dir);
      expect(run.code, run.stderr).toBe(1);
      const results = JSON.parse(run.stdout).runs[0].results as { ruleId: string; level: string }[];
      expect(results.map((r) => r.ruleId)).toEqual(expect.arrayContaining(['unknown-key', 'syntax']));
      expect(new Set(results.map((r) => r.level))).toEqual(new Set(['error', 'warning', 'note']));
      expect(validate(run.stdout)).toEqual([]);
    },
  );

  it(
    'reports a rule named by its id and a driver without informationUri (the tool is not silent)',
    { timeout: 120_000 },
    () => {
      const dir = makeTree({ 'policies/a.yaml': 'mode: review\ntool:\n  read: allow\n' });
      const log = JSON.parse(dshMode(['lint', '--format', 'sarif'], dir).stdout);
      const driver = log.runs[0].tool.driver;
      delete driver.informationUri;
      driver.rules[0].name = driver.rules[0].id;
      const found = validate(JSON.stringify(log));
      expect(found).toContain(`SARIF1001: runs[0].tool.driver.rules[0] ${driver.rules[0].id}`);
      expect(found.some((f) => f.startsWith('SARIF2005: runs[0].tool.driver'))).toBe(true);
    },
  );
});
