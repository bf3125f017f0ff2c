/**
 * The `sandbox` key: composed over a mode's documents as a ceiling (`read-only` beats `none`, whatever the load
 * order), replaced by `override: true`, located at its key, and applied only to the tools that run programs.
 * Documents are real YAML through the real loader and compiler.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../../src/compile/language/load.js';
import { builtinToolCatalog } from '../../../src/compile/catalog/catalog.js';
import { parseCatalog } from '../../../src/compile/catalog/catalog.js';

function compile(...texts: string[]) {
  return compilePolicies(texts.flatMap((text, i) => loadPolicyText(text, `d${i}.yaml`).documents));
}

describe('sandbox: composition', () => {
  it('is absent when no document of the mode sets it', () => {
    expect(compile('mode: m\ndefault: allow\n').get('m')!.sandbox).toBeUndefined();
  });

  it('takes the most restrictive setting in either order, located at the deciding key', () => {
    const a = compile('mode: m\nsandbox: none\n', 'mode: m\ndefault: allow\nsandbox: read-only\n').get('m')!;
    expect(a.sandbox).toEqual({
      kind: 'read-only',
      rule: { selector: 'sandbox', file: 'd1.yaml', line: 3, column: 1 },
    });
    const b = compile('mode: m\nsandbox: read-only\n', 'mode: m\nsandbox: none\n').get('m')!;
    expect(b.sandbox).toEqual({
      kind: 'read-only',
      rule: { selector: 'sandbox', file: 'd0.yaml', line: 2, column: 1 },
    });
  });

  it('reports the first document among equal settings', () => {
    const p = compile('mode: m\nsandbox: none\n', 'mode: m\nsandbox: none\n').get('m')!;
    expect(p.sandbox?.kind).toBe('none');
    expect(p.sandbox?.rule.file).toBe('d0.yaml');
  });

  it('is replaced by a later document with `override: true`', () => {
    const p = compile('mode: m\nsandbox: read-only\n', 'mode: m\noverride: true\nsandbox: none\n').get('m')!;
    expect(p.sandbox).toMatchObject({ kind: 'none', rule: { file: 'd1.yaml' } });
    const dropped = compile('mode: m\nsandbox: read-only\n', 'mode: m\noverride: true\n').get('m')!;
    expect(dropped.sandbox).toBeUndefined();
  });

  it('an operator `sandbox: none` cannot lift the built-in plan’s read-only sandbox', async () => {
    const builtin = await loadPolicySources([], { builtin: true });
    const set = compilePolicies([
      ...builtin.documents,
      ...loadPolicyText('mode: plan\nsandbox: none\n', 'ops.yaml').documents,
    ]);
    expect(set.get('plan')!.sandbox).toMatchObject({ kind: 'read-only', rule: { selector: 'sandbox' } });
    expect(set.get('plan')!.sandbox!.rule.file).toMatch(/plan\.yaml$/);
  });

  it('applies to the tools that run programs only', () => {
    const p = compile('mode: m\ndefault: allow\nsandbox: read-only\n').get('m')!;
    expect(p.sandboxFor!('bash')).toBe(p.sandbox);
    for (const name of ['read', 'write', 'mcp__srv__bash', 'Bash', 'bash2', 'exit_plan_mode'])
      expect(p.sandboxFor!(name), name).toBeUndefined();
  });

  it('is a strict key: any other value refuses the document', () => {
    const load = loadPolicyText('mode: m\nsandbox: strict\n', 'bad.yaml');
    expect(load.documents).toEqual([]);
    expect(load.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });
});

describe('sandbox: the catalog marks the tools that run programs', () => {
  it('marks the built-in bash and nothing else', () => {
    const marked = builtinToolCatalog()
      .filter((t) => t.runsPrograms)
      .map((t) => t.name);
    expect(marked).toEqual(['bash']);
  });

  it('marks a plain `bash` entry of a catalog file, never a server’s tool', () => {
    const { tools } = parseCatalog(
      JSON.stringify([{ name: 'bash' }, { server: 'sh', tools: [{ name: 'bash' }] }]),
      'c.json',
    );
    expect(tools.map((t) => [t.name, t.runsPrograms ?? false])).toEqual([
      ['bash', true],
      ['mcp__sh__bash', false],
    ]);
    const labelled = parseCatalog(JSON.stringify([{ name: 'bash', server: 'x' }]), 'c.json').tools;
    expect(labelled.map((t) => [t.name, t.runsPrograms ?? false])).toEqual([['bash', false]]);
  });
});
