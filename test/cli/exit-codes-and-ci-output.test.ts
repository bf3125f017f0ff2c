/**
 * One exit-code rule for the policy commands (`lint`, `check`, `matrix`, `diff`): 0 done, 1 the inputs were read
 * and are wrong (a policy that does not load, findings, an unknown mode), 2 an input cannot be read or the
 * command line is wrong. And output fit for CI: the built-in plan is `dsh-mode:policies/plan.yaml` in every
 * format (never the install path), and `--format github` keeps infos to one summary notice. In process, real files.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { makeTree, ROOT } from './run.js';

const REVIEW = 'mode: review\ntools:\n  read: allow\n  exit_plan_mode: ask\ndefault: deny\n';

/** Each command, given one policy path. */
const commands: [string, (path: string) => string[]][] = [
  ['lint', (p) => ['lint', p]],
  ['check', (p) => ['check', 'review', 'read', p]],
  ['matrix', (p) => ['matrix', p]],
  ['diff', (p) => ['diff', 'good', p]],
];

describe('one exit-code rule', () => {
  const dir = makeTree({
    'good/review.yaml': REVIEW,
    'bad/review.yaml': 'mode: review\ntools: [\n',
    'empty/.keep': '',
  });

  it.each(commands)(
    '%s: 2 for a missing path or a folder without policies, 1 for one that does not load',
    async (_, argv) => {
      expect((await runCli(argv('missing/'), { cwd: dir })).code).toBe(2);
      expect((await runCli(argv('empty'), { cwd: dir })).code).toBe(2);
      expect((await runCli(argv('bad'), { cwd: dir })).code).toBe(1);
      expect((await runCli(argv('good'), { cwd: dir })).code).toBe(0);
    },
  );
});

describe('the built-in plan in CI output', () => {
  const tree = () =>
    makeTree({
      'old/plan.yaml': 'mode: plan\ntools:\n  read: deny\n',
      'new/plan.yaml': 'mode: plan\ntools:\n  grep: deny\n',
    });

  it('diff --format markdown names it dsh-mode:policies/plan.yaml, never an absolute path', async () => {
    const out = await runCli(['diff', 'old', 'new', '--format', 'markdown'], { cwd: tree() });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('`dsh-mode:policies/plan.yaml:');
    expect(out.stdout).not.toContain(ROOT);
    const asJson = await runCli(['diff', 'old', 'new', '--format', 'json'], { cwd: tree() });
    expect(asJson.stdout).toContain('"dsh-mode:policies/plan.yaml"');
    expect(asJson.stdout).not.toContain(ROOT);
  });

  it('matrix (text, markdown, json) never shows the install path', async () => {
    for (const format of ['text', 'markdown', 'json']) {
      const out = await runCli(['matrix', 'old', '--format', format], { cwd: tree() });
      expect(out.code).toBe(0);
      expect(out.stdout).not.toContain(ROOT);
    }
  });

  it('lint --tools reports no default-decided info against the built-in plan, in any format', async () => {
    const dir = makeTree({
      'tools.json': JSON.stringify([{ name: 'read' }, { name: 'deploy' }, { name: 'mcp__x__y' }]),
      'policies/review.yaml': REVIEW,
    });
    const out = await runCli(['lint', '--tools', 'tools.json', '--format', 'json'], { cwd: dir });
    const found = JSON.parse(out.stdout) as { diagnostics: { rule: string; file: string }[] };
    const decided = found.diagnostics.filter((d) => d.rule === 'default-decided');
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.every((d) => d.file === 'policies/review.yaml')).toBe(true);
    for (const format of ['stylish', 'sarif', 'github']) {
      const text = (await runCli(['lint', '--tools', 'tools.json', '--format', format], { cwd: dir })).stdout;
      expect(text).not.toContain(ROOT);
    }
  });
});

describe('lint --format github', () => {
  const dir = makeTree({
    'tools.json': JSON.stringify(Array.from({ length: 15 }, (_, i) => ({ name: `tool_${i}` }))),
    'policies/review.yaml': 'mode: review\ntool:\n  read: allow\ndefault: deny\n',
    'policies/ops.yaml': 'mode: ops\ndefault: deny\n',
  });

  it('annotates errors and warnings, and sums infos in one notice', async () => {
    const out = await runCli(['lint', '--tools', 'tools.json', '--format', 'github'], { cwd: dir });
    expect(out.code).toBe(1);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error ')).map((l) => l.split('::')[1])).toEqual([
      'error file=policies/review.yaml,line=2,col=1,endLine=2,endColumn=4,title=unknown-key',
    ]);
    const notices = lines.filter((l) => l.startsWith('::notice'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^::notice title=dsh-mode lint::\d+ info findings are not annotated \(\d+ default-decided\): run `dsh-mode lint` to list them, or add `--annotate-infos`$/,
    );
  });

  it('annotates every info with --annotate-infos', async () => {
    const out = await runCli(['lint', '--tools', 'tools.json', '--format', 'github', '--annotate-infos'], {
      cwd: dir,
    });
    const notices = out.stdout.split('\n').filter((l) => l.startsWith('::notice'));
    expect(notices.length).toBeGreaterThan(10);
    expect(notices.every((l) => l.includes('title=default-decided'))).toBe(true);
  });
});
