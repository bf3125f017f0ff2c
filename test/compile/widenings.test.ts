/**
 * `findWidenings`: the tools a composed mode decides less restrictively than a reference mode.
 */
import { describe, expect, it } from 'vitest';
import { builtinToolCatalog } from '../../src/compile/catalog.js';
import { compilePolicies } from '../../src/compile/compile.js';
import { loadPolicySources, loadPolicyText } from '../../src/compile/load.js';
import { findWidenings } from '../../src/compile/widenings.js';

async function plans(extra: string) {
  const builtin = await loadPolicySources([]);
  const base = compilePolicies(builtin.documents).get('plan')!;
  const added = loadPolicyText(extra, 'extra.yaml');
  expect(added.diagnostics).toEqual([]);
  const plan = compilePolicies([...builtin.documents, ...added.documents]).get('plan')!;
  return { plan, base };
}

describe('findWidenings', () => {
  it('finds a widening by name, by glob and through effects, with the hints it needs and the rule', async () => {
    const { plan, base } = await plans(
      [
        'mode: plan',
        'override: true',
        'tools:',
        '  write: allow',
        '  "mcp__*": ask',
        '  exit_plan_mode: allow',
        'effects:',
        '  idempotent: allow',
        'default: deny',
        '',
      ].join('\n'),
    );
    const found = findWidenings(plan, base, builtinToolCatalog());
    const rule = (selector: string, line: number, column: number) => ({
      selector,
      file: 'extra.yaml',
      line,
      column,
    });
    expect(found.find((w) => w.label === 'write')).toEqual({
      label: 'write',
      before: 'deny',
      after: 'allow',
      rule: rule('write', 4, 3),
    });
    expect(found.find((w) => w.label === 'mcp__*')).toEqual({
      label: 'mcp__*',
      before: 'deny',
      after: 'ask',
      rule: rule('mcp__*', 5, 3),
    });
    // `exit_plan_mode` asks whether it is allowed or asked: no widening.
    expect(found.map((w) => w.label)).not.toContain('exit_plan_mode');
    const other = found.find((w) => w.label === '(other tool)');
    expect(other).toEqual({
      label: '(other tool)',
      before: 'deny',
      after: 'allow',
      hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
      rule: rule('effects.idempotent', 8, 3),
    });
  });

  it('finds nothing for a document that only narrows', async () => {
    const { plan, base } = await plans('mode: plan\ntools:\n  read: deny\n');
    expect(findWidenings(plan, base, builtinToolCatalog())).toEqual([]);
  });
});
