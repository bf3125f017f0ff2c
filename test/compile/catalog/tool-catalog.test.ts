/**
 * The one tool catalog a compiled policy decides calls without hints with: the built-in tools always with their
 * own annotations (whatever a `--tools` file says), other catalogued tools with theirs, anything else MCP's
 * defaults. And `check --config` counts an MCP tool's catalogued hints only when the deployment trusts its server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicyText, parseCatalog } from '../../../src/compile/api.js';
import { BUILTIN_TOOL_ANNOTATIONS, hintsOfAnnotations } from '../../../src/compile/index.js';
import { toolCatalog } from '../../../src/compile/catalog/tool-catalog.js';
import { runCheck } from '../../../src/cli/commands/check.js';
import { runLint } from '../../../src/cli/commands/lint.js';
import { tempDir } from '../../engine/setup.js';

const IDEM = loadPolicyText(
  'mode: idem\neffects:\n  idempotent: allow\ndefault: deny\n',
  'idem.yaml',
).documents;

describe('the tool catalog', () => {
  it('gives every built-in tool its own annotations, whatever the extra tools say', () => {
    const catalog = toolCatalog([
      { name: 'write', hints: { idempotent: false } },
      { name: 'web', hints: { readOnly: true } },
    ]);
    for (const [name, annotations] of Object.entries(BUILTIN_TOOL_ANNOTATIONS)) {
      expect(catalog.hintsOf(name)).toEqual(hintsOfAnnotations(annotations));
    }
    expect(catalog.hintsOf('web')).toEqual({ readOnly: true });
    expect(catalog.hintsOf('other')).toBeUndefined();
    expect(catalog.hintsOf('__proto__')).toBeUndefined();
  });

  it('decides a call without hints with it, and a call with hints by them', () => {
    const idem = compilePolicies(IDEM, { tools: [{ name: 'fetch', hints: { idempotent: true } }] }).get(
      'idem',
    )!;
    expect(idem.decide('write').decision).toBe('allow');
    expect(idem.decideCall!({ name: 'write', arguments: { path: 'a', content: 'x' } }).decision).toBe(
      'allow',
    );
    expect(idem.decide('fetch').decision).toBe('allow');
    expect(idem.decide('edit').decision).toBe('deny');
    expect(idem.decide('write', { idempotent: false }).decision).toBe('deny');
    // Without a catalog: the built-in tools alone.
    expect(compilePolicies(IDEM).get('idem')!.decide('fetch').decision).toBe('deny');
  });

  it('warns about a catalog file that gives a built-in tool a hint it does not have', () => {
    const text = JSON.stringify([
      { name: 'write', annotations: { idempotentHint: false } },
      { name: 'read', annotations: { readOnlyHint: true } },
    ]);
    const result = parseCatalog(text, 'tools.json');
    expect(result.diagnostics).toMatchObject([
      {
        code: 'invalid-catalog',
        severity: 'warning',
        message: expect.stringContaining('`write` is a built-in tool'),
      },
    ]);
    expect(result.tools.map((t) => t.name)).toEqual(['write', 'read']);
  });
});

describe('check --config: the deployment decides whose MCP hints count', () => {
  for (const trusted of [true, false]) {
    it(`a catalogued read-only MCP tool of a server the deployment ${trusted ? 'trusts' : 'does not trust'}`, async () => {
      const dir = tempDir('dsh-catalog-trust-');
      writeFileSync(
        join(dir, 'tools.json'),
        JSON.stringify({
          server: 'gh',
          trusted: true,
          tools: [{ name: 'list_issues', annotations: { readOnlyHint: true } }],
        }),
      );
      writeFileSync(
        join(dir, 'cordis.yml'),
        `- name: host\n- name: mode\n- name: mcp\n  config:\n    servers:\n      gh: { command: gh-mcp, trusted: ${trusted} }\n- name: demo\n`,
      );
      const report = await runCheck({
        mode: 'plan',
        tool: 'mcp__gh__list_issues',
        paths: [],
        cwd: dir,
        config: 'cordis.yml',
        catalog: 'tools.json',
      });
      expect(report).toMatchObject({ kind: 'decided', decision: trusted ? 'allow' : 'deny' });
      // Without --config, the catalog file's own `trusted: true` counts.
      const bare = await runCheck({
        mode: 'plan',
        tool: 'mcp__gh__list_issues',
        paths: [],
        cwd: dir,
        catalog: 'tools.json',
      });
      expect(bare).toMatchObject({ kind: 'decided', decision: 'allow' });
    });
  }
});

describe('lint cordis.yml --tools: the deployment decides whose MCP hints its inline tests see', () => {
  for (const trusted of [true, false]) {
    it(`a read-only tool of a server the deployment ${trusted ? 'trusts' : 'does not trust'}`, async () => {
      const dir = tempDir('dsh-catalog-lint-');
      writeFileSync(
        join(dir, 'tools.json'),
        JSON.stringify({
          server: 'gh',
          trusted: true,
          tools: [{ name: 'list_issues', annotations: { readOnlyHint: true } }],
        }),
      );
      writeFileSync(
        join(dir, 'cordis.yml'),
        [
          '- name: host',
          '- name: mode',
          '  config:',
          '    modes:',
          '      plan:',
          '        tests: [{ tool: mcp__gh__list_issues, expect: allow }]',
          '- name: mcp',
          '  config:',
          `    servers: { gh: { command: gh-mcp, trusted: ${trusted} } }`,
          '- name: demo',
          '',
        ].join('\n'),
      );
      const report = await runLint({ paths: ['cordis.yml'], cwd: dir, catalog: 'tools.json' });
      const failing = report.diagnostics.filter((d) => d.code === 'failing-test');
      expect(failing.length).toBe(trusted ? 0 : 1);
    });
  }
});
