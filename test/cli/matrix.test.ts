/**
 * `dsh-mode matrix`, end to end in temp folders (text, Markdown, JSON, colour, exit codes): in process through
 * `main()`, and one run of the built binary as a child process. The tool rows are unit-tested in
 * test/compile/report/grid.test.ts (sample names in test/compile/language/glob-syntax.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

const REVIEW = [
  'mode: review',
  'description: Read and comment.',
  'tools:',
  '  read: allow',
  '  "mcp__*": ask',
  '  "{web_search,web_fetch}": allow',
  'default: deny',
  '',
].join('\n');

type Matrix = {
  modes: { name: string; description: string | null }[];
  tools: { name: string; label: string; source: string }[];
  cells: {
    decision: string;
    visible: boolean;
    rule: { selector: string; file: string | null; line: number | null };
  }[][];
  toolSet: string;
};

function cell(out: Matrix, mode: string, label: string) {
  const m = out.modes.findIndex((x) => x.name === mode);
  const t = out.tools.findIndex((x) => x.label === label);
  expect(m, mode).toBeGreaterThanOrEqual(0);
  expect(t, label).toBeGreaterThanOrEqual(0);
  return out.cells[m]![t]!;
}

describe('dsh-mode matrix', () => {
  it('prints the built-in plan as a grid of the host tools, without colour off a terminal', async () => {
    const dir = makeTree({});
    const result = await runCli(['matrix'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^tool +plan$/);
    expect(result.stdout).toMatch(/^read +allow$/m);
    expect(result.stdout).toMatch(/^write +deny$/m);
    expect(result.stdout).toMatch(/^bash +deny$/m);
    expect(result.stdout).toMatch(/^exit_plan_mode +ask$/m);
    expect(result.stdout).toMatch(/^\(other tool\) +deny$/m);
    expect(result.stdout).toMatch(/^\(other read-only tool\) +allow$/m);
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('colours decisions when the terminal takes colour', async () => {
    const dir = makeTree({ 'policies/review.yaml': REVIEW });
    const { code, stdout } = await runCli(['matrix', join(dir, 'policies')], {
      cwd: dir,
      env: { FORCE_COLOR: '1' },
    });
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^tool +plan +review$/);
    expect(stdout).toContain('\u001b[32mallow\u001b[0m');
    expect(stdout).toContain('\u001b[31mdeny\u001b[0m');
    expect(stdout).toContain('\u001b[33mask\u001b[0m');
  });

  it('reports every mode × tool in JSON with the deciding rule, glob rows decided for a sample name (binary)', () => {
    const dir = makeTree({ 'policies/review.yaml': REVIEW });
    const out = json(dshMode(['matrix', '--format', 'json'], dir)) as unknown as Matrix;
    expect(out.modes).toEqual([
      {
        name: 'plan',
        description: expect.any(String),
        sandbox: {
          kind: 'read-only',
          rule: {
            selector: 'sandbox',
            file: 'dsh-mode:policies/plan.yaml',
            line: expect.any(Number),
            column: 1,
          },
        },
      },
      { name: 'review', description: 'Read and comment.', sandbox: { kind: 'none', rule: null } },
    ]);
    expect(out.toolSet).toBe('builtin');
    expect(cell(out, 'review', 'read')).toMatchObject({
      decision: 'allow',
      visible: true,
      rule: { selector: 'read', file: 'policies/review.yaml', line: 4 },
    });
    expect(out.tools.find((t) => t.label === 'mcp__*')).toEqual({
      name: 'mcp__x',
      label: 'mcp__*',
      source: 'glob',
    });
    expect(cell(out, 'review', 'mcp__*')).toMatchObject({
      decision: 'ask',
      rule: { selector: 'mcp__*', line: 5 },
    });
    expect(cell(out, 'plan', 'mcp__*')).toMatchObject({ decision: 'deny', rule: { selector: 'default' } });
    // Brace alternatives are literal names of their own.
    expect(cell(out, 'review', 'web_fetch')).toMatchObject({
      decision: 'allow',
      rule: { selector: '{web_search,web_fetch}' },
    });
    expect(out.cells.every((row) => row.length === out.tools.length)).toBe(true);
  });

  it('renders a Markdown table with one column per mode and the deciding rules', async () => {
    const dir = makeTree({ 'policies/review.yaml': REVIEW });
    const out = (await runCli(['matrix', '--format', 'markdown'], { cwd: dir })).stdout;
    expect(out).toContain('| tool | `plan` | `review` |');
    expect(out).toContain('| `write` | deny | deny |');
    expect(out).toContain('| `mcp__*` | deny | **ask** |');
    expect(out).toContain('- `read`: allow — `read` at `policies/review.yaml:4:3`');
  });

  it('uses the catalog’s tools and hints with --tools', async () => {
    const dir = makeTree({
      'policies/review.yaml': REVIEW,
      'tools.json': { tools: [{ name: 'lookup', annotations: { readOnlyHint: true } }, { name: 'deploy' }] },
    });
    const out = json(
      await runCli(['matrix', '--tools', 'tools.json', '--format', 'json'], { cwd: dir }),
    ) as unknown as Matrix;
    expect(out.toolSet).toBe('catalog');
    expect(out.tools.slice(0, 2).map((t) => t.label)).toEqual(['lookup', 'deploy']);
    // Built-in tools come only from the catalog or a policy that names them (plan names `bash`, nothing names `edit`).
    expect(out.tools.map((t) => t.label)).not.toContain('edit');
    expect(out.tools.map((t) => t.label)).toContain('bash');
    expect(cell(out, 'plan', 'lookup')).toMatchObject({
      decision: 'allow',
      rule: { selector: 'effects.readOnly' },
    });
    expect(cell(out, 'plan', 'deploy').decision).toBe('deny');
  });

  it('exits 1 for a policy that does not load and 2 for a path or catalog that cannot be read', async () => {
    const dir = makeTree({ 'bad.yaml': 'mode: review\ntool: {}\n' });
    const bad = await runCli(['matrix', 'bad.yaml'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error: policies cannot load, so no grid is shown');
    expect((await runCli(['matrix', 'missing/'], { cwd: dir })).code).toBe(2);
    expect((await runCli(['matrix', '--tools', 'missing.json'], { cwd: dir })).code).toBe(2);
    expect((await runCli(['matrix', '--format', 'html'], { cwd: dir })).code).toBe(2);
  });

  it('reads policies from a git revision', async () => {
    const dir = makeTree({ 'policies/review.yaml': REVIEW });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'review');
    writeFileSync(join(dir, 'policies/review.yaml'), REVIEW.replace('  read: allow', '  read: deny'));
    const out = json(
      await runCli(['matrix', 'git:HEAD:policies', '--format', 'json'], { cwd: dir }),
    ) as unknown as Matrix;
    expect(cell(out, 'review', 'read')).toMatchObject({
      decision: 'allow',
      rule: { selector: 'read', file: 'git:HEAD:policies/review.yaml', line: 4 },
    });
  });

  it('reads the repository policies from the repository root', async () => {
    const result = await runCli(['matrix', 'policies', 'policies/examples'], { cwd: ROOT });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^tool +plan +\S+/);
  });
});

describe('dsh-mode matrix: the sandbox of each mode', () => {
  it('names the sandbox each mode runs bash in, in text and Markdown', async () => {
    const { runCli } = await import('./run-in-process.js');
    const dir = makeTree({ 'policies/boxed.yaml': 'mode: boxed\nsandbox: read-only\ndefault: allow\n' });
    const text = await runCli(['matrix'], { cwd: dir });
    expect(text.stdout).toContain('\nsandbox for bash: plan read-only, boxed read-only\n');
    const none = makeTree({ 'policies/bare.yaml': 'mode: bare\nsandbox: none\ndefault: allow\n' });
    const md = await runCli(['matrix', '--format', 'markdown'], { cwd: none });
    expect(md.stdout).toContain('\nsandbox for bash: `plan` read-only, `bare` none\n');
  });
});
