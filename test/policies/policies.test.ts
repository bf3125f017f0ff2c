// The shipped policies: policies/plan.yaml and policies/examples/*.yaml load cleanly, and every inline test
// passes against its mode as composed up to and including its document, in load order (the policy language).
// `dsh-mode lint` runs the same tests; this keeps the policies pinned even without the CLI.
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PLAN_PATH,
  compilePolicies,
  lintPolicies,
  loadPolicySources,
  loadPolicyText,
} from '../../src/compile/api.js';

describe('policy language: inline tests of the shipped policies', async () => {
  const loaded = await loadPolicySources(['policies/examples']);

  it('load without any diagnostic', () => {
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.documents.length).toBe(loaded.files.length);
  });

  for (const [i, source] of loaded.documents.entries()) {
    const composed = compilePolicies(loaded.documents.slice(0, i + 1)).get(source.document.mode)!;
    for (const t of source.document.tests ?? []) {
      const label = t.name ?? `${t.tool} ${JSON.stringify(t.args ?? t.annotations ?? {})}`;
      it(`${source.file}: ${label} → ${t.expect}`, () => {
        const call = {
          name: t.tool,
          ...(t.args ? { arguments: t.args } : {}),
          ...(t.annotations ? { hints: t.annotations } : {}),
        };
        expect(composed.decideCall!(call).decision).toBe(t.expect);
      });
    }
  }
});

describe('policies/plan.yaml', async () => {
  const loaded = await loadPolicySources([]);
  const plan = compilePolicies(loaded.documents).get('plan')!;

  it('is the only built-in document and names the plan mode', () => {
    expect(loaded.files).toEqual([BUILTIN_PLAN_PATH]);
    expect(loaded.documents[0]!.document.mode).toBe('plan');
  });

  // An operator who wants no git in plan at all: one document turns it off.
  it('narrows to no git with a one-line document', () => {
    const extra = loadPolicyText(
      'mode: plan\ntools:\n  bash: { commands: { "git **": deny } }\n',
      'no-git.yaml',
    );
    const narrowed = compilePolicies([...loaded.documents, ...extra.documents]).get('plan')!;
    const bash = (command: string) => narrowed.decideCall!({ name: 'bash', arguments: { command } }).decision;
    expect([bash('git status'), bash('git log -5'), bash('ls'), bash('cat a')]).toEqual([
      'deny',
      'deny',
      'allow',
      'allow',
    ]);
  });

  // Every user's lint run includes this file, which they cannot edit: it must lint without a single finding.
  it('lints without a finding', () => {
    expect(lintPolicies(loaded)).toEqual([]);
  });

  it("denies write through its default, with the default key's location", () => {
    expect(plan.decide('write')).toEqual({
      decision: 'deny',
      rule: { selector: 'default', file: BUILTIN_PLAN_PATH, line: expect.any(Number), column: 1 },
    });
  });

  it('pins every decision the issue lists in its inline tests', () => {
    const tested = new Set(loaded.documents[0]!.document.tests!.map((t) => t.tool));
    for (const tool of [
      'read',
      'list',
      'grep',
      'todo_write',
      'web_search',
      'web_fetch',
      'exit_plan_mode',
      'write',
      'edit',
      'bash',
    ]) {
      expect(tested.has(tool)).toBe(true);
    }
  });

  it('tells the model how plan mode works', () => {
    expect(plan.section).toContain('exit_plan_mode');
    expect(plan.section).toMatch(/denied tool call means: keep planning/);
    expect(plan.section).toMatch(/"yes"/);
    expect(plan.description).toBeTruthy();
  });

  it('carries the yaml-language-server modeline', async () => {
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(BUILTIN_PLAN_PATH, 'utf8')).split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../schema/policy.schema.json',
    );
  });
});
