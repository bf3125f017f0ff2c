/**
 * `formatSarif`: the SARIF 2.1.0 output of `dsh-mode lint`, validated against the official SARIF schema
 * (vendored, see test/fixtures/README.md). Real: the rule registry and the schema; the diagnostics are built
 * inline so every shape (no range, no file, each severity, an unregistered code) is covered.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../../src/compile/lint/rules/index.js';
import type { Diagnostic } from '../../src/compile/types.js';
import { formatSarif } from '../../src/cli/formatters/sarif.js';
import { validateSarif } from './sarif-schema.js';
import { readFileSync } from 'node:fs';
import { githubWebUrl, packageRepository } from '../../src/apps/version.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const cwd = path.resolve('/repo');

const diagnostics: Diagnostic[] = [
  {
    code: 'unknown-key',
    severity: 'error',
    message: 'unknown key `tool`',
    messageId: 'unknownKey',
    file: 'policies/review.yaml',
    path: ['tool'],
    range: { start: { line: 3, column: 1 }, end: { line: 3, column: 5 } },
    help: 'did you mean `tools`?',
  },
  {
    code: 'no-op-rule',
    severity: 'info',
    message: 'rule `read` changes nothing',
    file: '/repo/policies/dir with space/plan ü.yaml',
    path: ['tools', 'read'],
    range: { start: { line: 7, column: 3 }, end: { line: 7, column: 7 } },
  },
  { code: 'io', severity: 'error', message: 'cannot read `x.yaml`', file: '/elsewhere/x.yaml', path: [] },
  { code: 'trap-mode', severity: 'warning', message: 'mode `x` allows nothing', file: null, path: ['mode'] },
  { code: 'some-future-code', severity: 'warning', message: 'new', file: 'a.yaml', path: [] },
];

function parse(text: string): any {
  return JSON.parse(text);
}

describe('formatSarif', () => {
  it('produces a log the official SARIF 2.1.0 schema accepts', () => {
    const log = parse(formatSarif({ diagnostics }, { cwd, version: '1.2.3' }));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
    expect(log.version).toBe('2.1.0');
  });

  it('is checked by a schema validator that rejects a malformed log', () => {
    const log = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0' }));
    log.runs[0].results[0].level = 'fatal';
    expect(validateSarif(log)).toBe(false);
    const noUri = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0' }));
    noUri.runs[0].originalUriBaseIds['%SRCROOT%'].uri = 'not a uri';
    expect(validateSarif(noUri)).toBe(false);
  });

  it('describes every registered lint rule with help, a docs anchor and its default level', () => {
    const log = parse(formatSarif({ diagnostics: [] }, { cwd, version: '0.0.0' }));
    const described = log.runs[0].tool.driver.rules as any[];
    for (const rule of Object.values(rules)) {
      const entry = described.find((r) => r.id === rule.id);
      expect(entry, rule.id).toBeDefined();
      expect(entry.shortDescription.text.toLowerCase()).toBe(rule.meta.description.toLowerCase());
      expect(entry.help.text).toBe(rule.meta.docs.fix);
      expect(entry.help.markdown).toContain(rule.meta.docs.failing.trim());
      expect(entry.helpUri).toBeUndefined();
      const level = { error: 'error', warning: 'warning', info: 'note' }[rule.meta.severity];
      expect(entry.defaultConfiguration.level).toBe(level);
    }
    expect(described.map((r) => r.id)).toContain('unknown-key');
    expect(new Set(described.map((r) => r.id)).size).toBe(described.length);
  });

  it('links the docs in the repository package.json names, each rule to its section, or links nothing', () => {
    const repository = 'https://github.com/owner/dsh-mode';
    const log = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0', repository }));
    expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
    const driver = log.runs[0].tool.driver;
    expect(driver.informationUri).toBe(repository);
    const page = readFileSync(path.join(ROOT, 'docs/reference/lint-rules.md'), 'utf8');
    for (const rule of driver.rules as any[]) {
      if (rule.id === 'some-future-code') continue;
      expect(rule.helpUri).toBe(`${repository}/blob/HEAD/docs/reference/lint-rules.md#${rule.id}`);
      // The anchor is a heading of the page, so the link lands on the rule.
      expect(page).toMatch(new RegExp(`^#{2,3} ${rule.id}$`, 'm'));
    }
    const none = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0' })).runs[0].tool.driver;
    expect(none.informationUri).toBeUndefined();
    expect((none.rules as any[]).some((r) => 'helpUri' in r)).toBe(false);
    const readme = 'file:///opt/node_modules/dsh-mode/README.md';
    const installed = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0', documentation: readme }));
    expect(installed.runs[0].tool.driver.informationUri).toBe(readme);
  });

  it('names every rule differently from its id, ignoring case (SARIF wants a name people read)', () => {
    const log = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0' }));
    for (const rule of log.runs[0].tool.driver.rules as any[]) {
      expect(rule.name.toLowerCase(), rule.id).not.toBe(rule.id.toLowerCase());
    }
  });

  it.each([
    ['github:owner/repo', 'https://github.com/owner/repo'],
    ['owner/repo', 'https://github.com/owner/repo'],
    [{ type: 'git', url: 'git+https://github.com/owner/repo.git' }, 'https://github.com/owner/repo'],
    ['git@github.com:owner/repo.git', 'https://github.com/owner/repo'],
    ['https://gitlab.com/owner/repo', undefined],
    [{ type: 'git' }, undefined],
    [undefined, undefined],
  ])('reads the repository field %j as %s', (field, url) => {
    expect(githubWebUrl(field)).toBe(url);
  });

  it("links nothing from this package's own field, which names no public address (README, Install)", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.repository).toEqual({ type: 'git' });
    expect(packageRepository()).toBeUndefined();
  });

  it('points each result at its rule and at a region with relative URIs under %SRCROOT%', () => {
    const log = parse(formatSarif({ diagnostics }, { cwd, version: '0.0.0' }));
    const run = log.runs[0];
    expect(run.originalUriBaseIds['%SRCROOT%'].uri).toBe('file:///repo/');
    const [first, second, third, fourth, fifth] = run.results;
    expect(run.tool.driver.rules[first.ruleIndex].id).toBe('unknown-key');
    expect(first).toMatchObject({
      ruleId: 'unknown-key',
      level: 'error',
      message: { text: 'unknown key `tool`\nhelp: did you mean `tools`?' },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'policies/review.yaml', uriBaseId: '%SRCROOT%' },
            region: { startLine: 3, startColumn: 1, endLine: 3, endColumn: 5 },
          },
        },
      ],
    });
    expect(second.level).toBe('note');
    expect(second.locations[0].physicalLocation.artifactLocation).toEqual({
      uri: 'policies/dir%20with%20space/plan%20%C3%BC.yaml',
      uriBaseId: '%SRCROOT%',
    });
    expect(third.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'file:///elsewhere/x.yaml' },
      region: { startLine: 1 },
    });
    expect(fourth.locations).toBeUndefined();
    expect(run.tool.driver.rules[fifth.ruleIndex].id).toBe('some-future-code');
  });
});
