/**
 * `lintPolicies`: the runner. Real files in a temp folder through the real loader; rules are the registered ones
 * except where a test passes its own (a throwing rule).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { interpolate, lintPolicies } from '../../../src/compile/lint/lint.js';
import { compilePolicies } from '../../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../../src/compile/language/load.js';
import { defineRule } from '../../../src/compile/lint/rules/define.js';
import override from '../../../src/compile/lint/rules/override.js';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-lint-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('lintPolicies', () => {
  it('keeps load diagnostics with their codes and adds rule findings, sorted by file, position and code', async () => {
    const dir = tree({
      'a.yaml':
        'mode: review\ntools:\n  write: allow\n  exit_plan_mode: allow\ntests:\n  - { tool: write, expect: deny }\n',
      'b.yaml': 'mode: review\ntool:\n  read: allow\n',
    });
    const load = await loadPolicySources([join(dir, 'a.yaml'), join(dir, 'b.yaml')], { builtin: false });
    const found = lintPolicies(load).map((d) => [d.file?.slice(dir.length + 1), d.range?.start.line, d.code]);
    expect(found).toEqual([
      ['a.yaml', 4, 'exit-without-approval'],
      ['a.yaml', 6, 'failing-test'],
      ['b.yaml', 2, 'unknown-key'],
    ]);
  });

  it('runs inline tests against the mode composed up to their document, in load order', async () => {
    const dir = tree({
      '1.yaml': 'mode: review\ndefault: allow\ntests:\n  - { tool: bash, expect: allow }\n',
      '2.yaml': 'mode: review\ntools:\n  bash: deny\ntests:\n  - { tool: bash, expect: allow }\n',
    });
    const load = await loadPolicySources([dir], { builtin: false });
    const failing = lintPolicies(load).filter((d) => d.code === 'failing-test');
    expect(failing.map((d) => [d.file?.slice(dir.length + 1), d.range?.start.line])).toEqual([['2.yaml', 5]]);
    expect(failing[0]!.help).toBe(
      `decided by \`bash\` at ${join(dir, '2.yaml')}:3:3: change that rule or the expectation`,
    );
  });

  it('maps a reported key path to the range of the key', () => {
    const load = loadPolicyText('mode: plan\n\noverride: true\n', 'x.yaml');
    const [d] = lintPolicies(load, { rules: [override] });
    expect(d).toMatchObject({
      code: 'override',
      severity: 'info',
      messageId: 'override',
      file: 'x.yaml',
      path: ['override'],
      range: { start: { line: 3, column: 1 }, end: { line: 3, column: 9 } },
      help: expect.stringContaining('ceiling'),
    });
  });

  it('turns a throwing rule into an internal error and still runs the others', () => {
    const broken = defineRule({
      id: 'broken',
      meta: {
        description: 'throws',
        severity: 'warning',
        messages: { never: { text: 'never' } },
        docs: { failing: '', passing: '', fix: '' },
      },
      check() {
        throw new Error('boom');
      },
    });
    const load = loadPolicyText('mode: plan\noverride: true\n', 'x.yaml');
    expect(
      lintPolicies(load, { rules: [broken, override] }).map((d) => [d.code, d.severity, d.message]),
    ).toEqual([
      ['internal-error', 'error', 'rule `broken` failed on this document: boom'],
      ['override', 'info', 'this document replaces every earlier document of mode `plan`'],
    ]);
  });

  it('drops exact duplicates', () => {
    const load = loadPolicyText('mode: plan\noverride: true\n', 'x.yaml');
    expect(lintPolicies(load, { rules: [override, override] })).toHaveLength(1);
  });

  it('lints nothing but the load diagnostics when no document loads', () => {
    const load = loadPolicyText('mode: [\n', 'x.yaml');
    const found = lintPolicies(load);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((d) => d.code === 'syntax')).toBe(true);
  });
});

describe('interpolate', () => {
  it('fills known slots and leaves unknown ones as written', () => {
    expect(interpolate('`{{a}}` and {{ b }} and {{c}}', { a: 'x', b: 2 })).toBe('`x` and 2 and {{c}}');
  });

  it('does not read inherited properties as slots', () => {
    expect(interpolate('{{constructor}}', {})).toBe('{{constructor}}');
  });
});

describe('ruleContexts', () => {
  it("reads each document's selectors, its own once, another document's afresh and equal", async () => {
    const { ruleContexts } = await import('../../../src/compile/lint/context.js');
    const texts = [
      'mode: m\ntools:\n  "a*": allow\n  "{b,c}": ask\n',
      'mode: m\ntools:\n  "a*": deny\n  d: allow\n  "[x": deny\n',
    ];
    const docs = texts.flatMap((t, i) => loadPolicyText(t, `${i}.yaml`).documents);
    const [first, second] = [...ruleContexts(docs, undefined)];
    expect(first!.selectors()).toBe(first!.selectors());
    expect(first!.selectors(docs[0]!)).toBe(first!.selectors());
    expect(first!.selectors(docs[1]!)).toEqual(second!.selectors());
    expect(second!.selectors().map((r) => [r.selector, r.decision, r.error !== undefined])).toEqual([
      ['a*', 'deny', false],
      ['d', 'allow', false],
      ['[x', 'deny', true],
    ]);
    expect(first!.selectors()[1]!.alternatives.map((a) => a.name)).toEqual(['b', 'c']);
  });

  it('composes as the compiler does, and removing an entry is the same as not writing it', async () => {
    const { ruleContexts } = await import('../../../src/compile/lint/context.js');
    const texts = [
      'mode: m\ntools:\n  "a*": allow\n  ab: ask\neffects:\n  readOnly: allow\n',
      'mode: m\ntools:\n  "*b": deny\n  c: allow\ndefault: ask\n',
      'mode: m\noverride: true\ntools:\n  "a?": ask\n  c: deny\neffects:\n  destructive: deny\n',
      'mode: m\ntools:\n  ab: allow\n  "{c,d}": allow\n',
    ];
    const docs = texts.flatMap((t, i) => loadPolicyText(t, `${i}.yaml`).documents);
    const withoutC = loadPolicyText('mode: m\ntools:\n  "*b": deny\ndefault: ask\n', '1.yaml').documents;
    const withoutEffect = loadPolicyText(
      'mode: m\noverride: true\ntools:\n  "a?": ask\n  c: deny\n',
      '2.yaml',
    ).documents;
    const contexts = [...ruleContexts(docs, undefined)];
    const altered = [...ruleContexts([docs[0]!, withoutC[0]!, docs[2]!, docs[3]!], undefined)];
    const alteredEffect = [...ruleContexts([docs[0]!, docs[1]!, withoutEffect[0]!, docs[3]!], undefined)];
    const names = ['a', 'ab', 'ax', 'b', 'cb', 'c', 'd', 'zz'];
    // The override at position 2 starts its own composition.
    const upTo = [[0], [0, 1], [2], [2, 3]];
    expect(contexts.map((c) => c.compose('before') === undefined)).toEqual([true, false, true, false]);
    for (const [i, context] of contexts.entries()) {
      const prefix = compilePolicies(upTo[i]!.map((k) => docs[k]!)).get('m')!;
      for (const name of names) {
        for (const hints of [undefined, { readOnly: true }, { destructive: false }]) {
          const decision = context.compose('upTo').decide(name, hints).decision;
          expect(decision).toBe(prefix.decide(name, hints).decision);
          expect(context.compose('mode').decide(name, hints)).toEqual(
            compilePolicies(docs).get('m')!.decide(name, hints),
          );
          expect(context.compose('alone').decide(name, hints)).toEqual(
            compilePolicies([docs[i]!]).get('m')!.decide(name, hints),
          );
          if (i > 0 && i !== 2)
            expect(context.compose('before')!.decide(name, hints)).toEqual(
              contexts[i - 1]!.compose('upTo').decide(name, hints),
            );
          const same = context.compose('upTo', { entry: ['tools', 'nope'], names });
          expect(same.decide(name, hints).decision).toBe(decision);
          if (i === 1) {
            const removed = context.compose('upTo', { entry: ['tools', 'c'], names });
            expect(removed.decide(name, hints).decision).toBe(
              altered[1]!.compose('upTo').decide(name, hints).decision,
            );
          }
          if (i === 2) {
            const removed = context.compose('upTo', { entry: ['effects', 'destructive'], names });
            expect(removed.decide(name, hints).decision).toBe(
              alteredEffect[2]!.compose('upTo').decide(name, hints).decision,
            );
          }
        }
      }
    }
  });
});
