/**
 * `diff` and `matrix` on argument rules. `diff` finds a widening of one command or one path exactly (the exact
 * diff, `src/compile/report/escalations.ts`) and shows it as a shortest witness call; `matrix` probes each
 * pattern with calls that match it and calls that just miss it, as a view. Every witness is re-decided here with
 * the engine's `authorize` on both sides, so a reported escalation is a real one. Real files, real CLI (in
 * process), real compiler.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/decide/compile.js';
import { commandProbes, pathProbes } from '../../src/compile/lint/argument-probes.js';
import { loadPolicyText } from '../../src/compile/language/load.js';
import { authorize } from '../../src/engine/authorize.js';
import { runCli } from './run-in-process.js';
import { makeTree, ROOT } from './run.js';

const team = (bash: string[], read: string[] = []): string =>
  [
    'mode: team',
    'tools:',
    '  bash:',
    '    decision: deny',
    '    commands:',
    ...bash.map((line) => `      ${line}`),
    ...(read.length > 0
      ? ['  read:', '    decision: allow', '    paths:', ...read.map((l) => `      ${l}`)]
      : []),
    'default: deny',
    '',
  ].join('\n');

interface Row {
  mode: string;
  tool: { name: string; label: string; source: string; arguments?: Record<string, string> };
  before: { decision: string; pattern?: { selector: string } };
  after: { decision: string; pattern?: { selector: string; line: number } };
  change: string;
}

function decide(text: string, call: { name: string; arguments: Record<string, string> }): string {
  const policies = compilePolicies(loadPolicyText(text, 'p.yaml').documents);
  return authorize(policies, 'team', call).decision;
}

async function diffRows(
  oldText: string,
  newText: string,
): Promise<{ rows: Row[]; escalations: Row[]; narrowings: Row[]; code: number; stderr: string }> {
  const dir = makeTree({ 'old/team.yaml': oldText, 'new/team.yaml': newText });
  const json = await runCli(['diff', 'old', 'new', '--no-builtin', '--format', 'json'], { cwd: dir });
  const failing = await runCli(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], { cwd: dir });
  const report = JSON.parse(json.stdout) as { rows: Row[]; escalations: Row[]; narrowings: Row[] };
  return { ...report, code: failing.code, stderr: failing.stderr };
}

describe('diff finds argument widenings exactly', () => {
  it("fails on plan's `sort ** --o* **` replaced by two decoys that deny only what probes would ask (docs/ci.md)", async () => {
    const plan = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');
    const decoy = plan.replace(
      /^ {6}"sort \*\* --o\* \*\*":.*$/m,
      '      "sort ** --output=x **": deny\n      "sort ** --o **": deny',
    );
    const dir = makeTree({ 'base/plan.yaml': plan, 'policies/plan.yaml': decoy });
    const failing = await runCli(['diff', 'base', 'policies', '--no-builtin', '--fail-on-escalation'], {
      cwd: dir,
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain(
      'error: 1 escalation towards allow (--fail-on-escalation):\n' +
        '  mode `plan`, call `bash` with {"command":"sort --oy"}: deny → allow by `sort **` at policies/plan.yaml:164:7 of `bash` at policies/plan.yaml:51:3\n',
    );
    const md = await runCli(['diff', 'base', 'policies', '--no-builtin', '--format', 'markdown'], {
      cwd: dir,
    });
    expect(md.stdout).toContain('| ⚠️ escalation | `plan` | `bash command="sort --oy"` | deny | **allow** |');
  });

  it('catches `git log *` widened to `git *` with a counterexample call that really widened', async () => {
    const before = team(['"git log *": allow', '"git push **": deny']);
    const after = team(['"git *": allow']);
    const { escalations, code, stderr } = await diffRows(before, after);
    expect(escalations.length).toBeGreaterThan(0);
    for (const r of escalations) {
      expect(r.tool.source).toBe('witness');
      expect(r.after.pattern?.selector).toBe('git *');
      const call = { name: r.tool.name, arguments: r.tool.arguments! };
      expect(decide(before, call)).toBe('deny');
      expect(decide(after, call)).toBe('allow');
    }
    expect(escalations.map((r) => r.tool.arguments?.command)).toContain('git push');
    expect(code).toBe(1);
    expect(stderr).toContain(
      'mode `team`, call `bash` with {"command":"git push"}: deny → allow by `git *` at new/team.yaml:6:7',
    );
  });

  it('catches a path widening (`.env*` to `.env`) with the path that now reads', async () => {
    const before = team(['"git status": allow'], ['".env*": deny']);
    const after = team(['"git status": allow'], ['".env": deny']);
    const { escalations, code } = await diffRows(before, after);
    expect(escalations.map((r) => [r.tool.label, r.before.decision, r.after.decision])).toEqual([
      ['read path=".envx"', 'deny', 'allow'],
    ]);
    expect(decide(after, { name: 'read', arguments: { path: '.envx' } })).toBe('allow');
    expect(decide(before, { name: 'read', arguments: { path: '.envx' } })).toBe('deny');
    expect(code).toBe(1);
  });

  it('catches a folder widened by a near miss: `src/**` to `src*/**` allows `srcx/x`', async () => {
    const text = (p: string) =>
      ['mode: team', 'tools:', '  write:', '    paths:', `      "${p}": allow`, ''].join('\n');
    const { escalations } = await diffRows(text('src/**'), text('src*/**'));
    expect(escalations.map((r) => r.tool.arguments?.path)).toEqual(['srcx/x']);
  });

  it('reports nothing for identical documents, and nothing for a reordered table', async () => {
    const text = team(['"git log **": allow', '"git push **": deny'], ['".env*": deny', '"src/**": allow']);
    const same = await diffRows(text, text);
    expect(same.rows.filter((r) => r.change !== 'unchanged')).toEqual([]);
    expect([...same.escalations, ...same.narrowings]).toEqual([]);
    expect(same.code).toBe(0);
    const reordered = team(
      ['"git push **": deny', '"git log **": allow'],
      ['"src/**": allow', '".env*": deny'],
    );
    const moved = await diffRows(text, reordered);
    expect(moved.rows.filter((r) => r.change === 'escalation' || r.change === 'narrowing')).toEqual([]);
    expect([...moved.escalations, ...moved.narrowings]).toEqual([]);
  });

  it('names the witness in text and Markdown output', async () => {
    const dir = makeTree({
      'old/team.yaml': team(['"git log *": allow']),
      'new/team.yaml': team(['"git *": allow']),
    });
    const text = await runCli(['diff', 'old', 'new', '--no-builtin'], { cwd: dir });
    expect(text.stdout).toMatch(
      /^↑ team {2}bash command="git ''" +deny → allow +`git \*` at new\/team\.yaml:6:7/m,
    );
    const md = await runCli(['diff', 'old', 'new', '--no-builtin', '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toContain(
      `| ⚠️ escalation | \`team\` | \`bash command="git ''"\` | deny | **allow** |`,
    );
  });
});

describe('matrix probes argument rules', () => {
  it('shows the calls a mode decides otherwise than the bare tool, once per answer', async () => {
    const dir = makeTree({
      'policies/team.yaml': team(['"git log **": allow', '"git log --output*": deny']),
    });
    const result = await runCli(['matrix', '--no-builtin', '--format', 'json'], { cwd: dir });
    const report = JSON.parse(result.stdout) as {
      tools: Row['tool'][];
      cells: { decision: string; pattern?: { selector: string } }[][];
    };
    const calls = report.tools
      .map((tool, t) => ({ tool, cell: report.cells[0]![t]! }))
      .filter(({ tool }) => tool.source === 'argument');
    expect(
      calls.map(({ tool, cell }) => [tool.arguments?.command, cell.decision, cell.pattern?.selector]),
    ).toEqual([['git log x', 'allow', 'git log **']]);
    const text = await runCli(['matrix', '--no-builtin'], { cwd: dir });
    expect(text.stdout).toMatch(/^bash command="git log x" +allow$/m);
  });
});

describe('argument probes', () => {
  it('match each command pattern and just miss it', () => {
    expect(commandProbes('git log *')).toEqual([
      'git log x',
      'git logx x',
      'git log',
      'git log x x',
      'git log x ; rm x',
    ]);
    expect(commandProbes('git *', ['git push **'])).toContain('git push');
    expect(commandProbes('git log **')).toEqual(
      expect.arrayContaining(['git log', 'git log x', 'git logx', 'git', 'git log ; rm x']),
    );
  });

  it('match each path pattern and just miss it', () => {
    expect(pathProbes('src/**')).toEqual(
      expect.arrayContaining([
        'src/a',
        'src/a/b',
        'srcx/a',
        'src',
        'src/../x',
        '../src/a',
        '/src/a',
        'SRC/A',
      ]),
    );
    expect(pathProbes('{a,b}/*.md')).toEqual(expect.arrayContaining(['a/x.md', 'b/x.md', 'ax/x.md']));
    expect(pathProbes('/etc/**')).toEqual(expect.arrayContaining(['/etc/a', '/etcx/a', '/etc']));
  });
});
