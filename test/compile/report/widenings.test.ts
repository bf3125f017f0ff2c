/**
 * `findWidenings`: the tools a composed mode decides less restrictively than a reference mode.
 */
import { describe, expect, it } from 'vitest';
import { builtinToolCatalog } from '../../../src/compile/catalog/catalog.js';
import { compilePolicies } from '../../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../../src/compile/language/load.js';
import { findWidenings } from '../../../src/compile/report/widenings.js';

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

  it('finds a widening per argument pattern of an override, as the call it widens', async () => {
    const { plan, base } = await plans(
      [
        'mode: plan',
        'override: true',
        'tools:',
        '  bash:',
        '    decision: deny',
        '    commands:',
        '      "git status": allow',
        '      "git push **": allow',
        '      "git log **": allow',
        '      "git log ** --output* **": deny',
        '  read: allow',
        '  write:',
        '    decision: deny',
        '    paths:',
        '      "notes/**": allow',
        'default: deny',
        '',
      ].join('\n'),
    );
    const found = findWidenings(plan, base, builtinToolCatalog());
    const at = (selector: string, line: number, column: number) => ({
      selector,
      file: 'extra.yaml',
      line,
      column,
    });
    expect(found.filter((w) => w.label.startsWith('bash'))).toEqual([
      {
        label: 'bash command="git push x"',
        before: 'deny',
        after: 'allow',
        rule: at('bash', 4, 3),
        arguments: { command: 'git push x' },
        pattern: at('git push **', 8, 7),
      },
      // Plan denies `git log --ext-diff`; this `git log **` allows it (only `--output` is denied again).
      {
        label: 'bash command="git log x --ext-diffx x"',
        before: 'deny',
        after: 'allow',
        rule: at('bash', 4, 3),
        arguments: { command: 'git log x --ext-diffx x' },
        pattern: at('git log **', 9, 7),
      },
    ]);
    expect(found.filter((w) => w.label.startsWith('write'))).toEqual([
      {
        label: 'write path="notes/a"',
        before: 'deny',
        after: 'allow',
        rule: at('write', 12, 3),
        arguments: { path: 'notes/a' },
        pattern: at('notes/**', 15, 7),
      },
    ]);
    // Each widened call really is decided that way, and `git status` and `git log` widen nothing.
    for (const w of found.filter((x) => x.arguments !== undefined)) {
      const call = { name: w.label.split(' ')[0]!, arguments: w.arguments! };
      expect(plan.decideCall!(call).decision).toBe(w.after);
      expect(base.decideCall!(call).decision).toBe(w.before);
    }
  });

  it('finds no argument widening under the ceiling: an operator allow there changes nothing', async () => {
    const { plan, base } = await plans(
      'mode: plan\ntools:\n  bash:\n    commands:\n      "git push **": allow\n      "npm test": allow\n',
    );
    expect(plan.decideCall!({ name: 'bash', arguments: { command: 'git push' } }).decision).toBe('deny');
    expect(findWidenings(plan, base, builtinToolCatalog())).toEqual([]);
  });

  it('finds nothing for a document that only narrows', async () => {
    const { plan, base } = await plans('mode: plan\ntools:\n  read: deny\n');
    expect(findWidenings(plan, base, builtinToolCatalog())).toEqual([]);
  });
});
