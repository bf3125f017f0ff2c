/**
 * `dsh-mode diff`, end to end on temp folders and on a temp git repository (real `git init`, real commits): in
 * process through `main()`, and one run of the built binary as a child process. Pins escalation detection,
 * `--fail-on-escalation` naming the rule and line, the JSON report, the Markdown for pull requests, and the exit
 * codes (0, 1, 2).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/cli/commands/diff.js';
import { parseGitSpec } from '../../src/compile/language/source.js';
import { runCli } from './run-in-process.js';
import { dshMode, json, makeTree, ROOT } from './run.js';
import { readFileSync } from 'node:fs';

const OLD_REVIEW = [
  'mode: review',
  'tools:',
  '  read: allow',
  '  web_fetch: allow',
  '  "mcp__*": deny',
  'default: deny',
  '',
].join('\n');

/** `write` now allowed (line 5), `web_fetch` now denied, `read` moved a line down but unchanged. */
const NEW_REVIEW = [
  'mode: review',
  'description: Reviews, and now writes.',
  'tools:',
  '  read: allow',
  '  write: allow',
  '  web_fetch: deny',
  '  "mcp__*": deny',
  'default: deny',
  '',
].join('\n');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

function repo(files: Record<string, string>): string {
  const dir = makeTree(files);
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'policies');
  return dir;
}

type Row = {
  mode: string;
  tool: { label: string };
  before: { decision: string };
  after: any;
  change: string;
};

describe('dsh-mode diff', () => {
  it('lists escalations and narrowings between two folders and exits 0 without --fail-on-escalation', async () => {
    const dir = makeTree({ 'old/review.yaml': OLD_REVIEW, 'new/review.yaml': NEW_REVIEW });
    const result = await runCli(['diff', 'old', 'new', '--no-builtin'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('old → new: 1 escalation, 1 narrowing, 0 rule changes');
    expect(result.stdout).toMatch(
      /^↑ review {2}write +deny → allow +`write` at new\/review\.yaml:5:3 \(was `default` at old\/review\.yaml:6:1\)$/m,
    );
    expect(result.stdout).toMatch(
      /^↓ review {2}web_fetch +allow → deny +`web_fetch` at new\/review\.yaml:6:3/m,
    );
    expect(result.stdout).not.toMatch(/ read /);
  });

  it('exits 1 with --fail-on-escalation and names the mode, tool, rule and line on stderr', async () => {
    const dir = makeTree({ 'old/review.yaml': OLD_REVIEW, 'new/review.yaml': NEW_REVIEW });
    const result = await runCli(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: 1 escalation towards allow (--fail-on-escalation):\n' +
        '  mode `review`, tool `write`: deny → allow by `write` at new/review.yaml:5:3\n',
    );
  });

  it('exits 0 with --fail-on-escalation when the change only narrows', async () => {
    const narrowed = OLD_REVIEW.replace('  web_fetch: allow\n', '');
    const dir = makeTree({ 'old/review.yaml': OLD_REVIEW, 'new/review.yaml': narrowed });
    const result = await runCli(
      ['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation', '--format', 'json'],
      { cwd: dir },
    );
    expect(result.code).toBe(0);
    expect(json(result).counts).toEqual({
      escalation: 0,
      narrowing: 1,
      'rule-changed': 0,
      unchanged: expect.any(Number),
    });
  });

  it('reports every mode and tool in JSON, with both deciding rules (the built binary)', () => {
    const dir = makeTree({ 'old/review.yaml': OLD_REVIEW, 'new/review.yaml': NEW_REVIEW });
    const out = json(dshMode(['diff', 'old', 'new', '--no-builtin', '--format', 'json'], dir));
    expect(out.kind).toBe('diff');
    expect(out.old).toEqual({ source: 'old', files: ['old/review.yaml'], modes: ['review'] });
    const rows = out.rows as Row[];
    const write = rows.find((r) => r.tool.label === 'write')!;
    expect(write).toMatchObject({
      mode: 'review',
      before: {
        decision: 'deny',
        visible: false,
        rule: { selector: 'default', file: 'old/review.yaml', line: 6 },
      },
      after: {
        decision: 'allow',
        visible: true,
        rule: { selector: 'write', file: 'new/review.yaml', line: 5, column: 3 },
      },
      change: 'escalation',
    });
    // `read` moved from line 3 to 4: the same rule, so unchanged.
    expect(rows.find((r) => r.tool.label === 'read')!.change).toBe('unchanged');
    // Without --tools, the reference host's built-in tools are compared too.
    expect(rows.map((r) => r.tool.label)).toEqual(
      expect.arrayContaining(['bash', 'edit', 'exit_plan_mode', 'mcp__*']),
    );
  });

  it('treats a mode that only NEW defines as escalating from deny', async () => {
    const dir = makeTree({
      'old/review.yaml': OLD_REVIEW,
      'new/review.yaml': OLD_REVIEW,
      'new/yolo.yaml': 'mode: yolo\ndefault: allow\n',
    });
    const result = await runCli(
      ['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation', '--format', 'json'],
      { cwd: dir },
    );
    expect(result.code).toBe(1);
    const rows = (json(result).rows as Row[]).filter((r) => r.mode === 'yolo');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.before).toMatchObject({
        decision: 'deny',
        rule: { selector: '(mode not defined)', file: null },
      });
      expect(row.change).toBe('escalation');
    }
  });

  it('renders Markdown for a pull-request comment, escaping table syntax in tool names', async () => {
    const dir = makeTree({
      'old/review.yaml': OLD_REVIEW,
      'new/review.yaml': NEW_REVIEW.replace('  write: allow', '  "odd|tool": allow\n  write: allow'),
    });
    const out = (await runCli(['diff', 'old', 'new', '--no-builtin', '--format', 'markdown'], { cwd: dir }))
      .stdout;
    expect(out).toContain('### dsh-mode policy diff: `old` → `new`');
    expect(out).toContain('**⚠️ 2 escalations, 1 narrowing, 0 rule changes.**');
    expect(out).toContain(
      '| ⚠️ escalation | `review` | `write` | deny | **allow** | `write` at `new/review.yaml:6:3` |',
    );
    expect(out).toContain('| ⚠️ escalation | `review` | `odd\\|tool` | deny | **allow** |');
    const table = out.split('\n').filter((l) => l.startsWith('|'));
    for (const line of table) expect(line.split(/(?<!\\)\|/).length).toBe(9);
  });

  it('compares the decisions of the tools of a catalog given with --tools', async () => {
    const dir = makeTree({
      'old/review.yaml': OLD_REVIEW,
      'new/review.yaml': OLD_REVIEW.replace('default: deny', 'effects:\n  readOnly: allow\ndefault: deny'),
      'tools.json': [
        { name: 'mcp__gh__list', annotations: { readOnlyHint: true } },
        { name: 'fetch_docs', annotations: { readOnlyHint: true } },
      ],
    });
    const out = json(
      await runCli(['diff', 'old', 'new', '--no-builtin', '--tools', 'tools.json', '--format', 'json'], {
        cwd: dir,
      }),
    );
    const labels = (out.rows as Row[]).map((r) => r.tool.label);
    expect(labels).not.toContain('bash');
    const changed = (out.rows as Row[])
      .filter((r) => r.change !== 'unchanged')
      .map((r) => [r.tool.label, r.change]);
    // mcp__gh__list stays denied by `mcp__*`; fetch_docs and the read-only probe become allowed by the effect.
    expect(changed).toEqual([
      ['fetch_docs', 'escalation'],
      ['(other read-only tool)', 'escalation'],
    ]);
  });

  it('exits 1 when a side does not load, and says which', async () => {
    const dir = makeTree({
      'old/review.yaml': OLD_REVIEW,
      'new/review.yaml': 'mode: review\ntool:\n  write: allow\n',
    });
    const result = await runCli(['diff', 'old', 'new', '--no-builtin'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown key `tool`');
    expect(result.stderr).toContain('error: policies (NEW) cannot load, so nothing is compared');
  });

  it('exits 2 for usage errors and unreadable paths', async () => {
    const dir = makeTree({ 'old/review.yaml': OLD_REVIEW });
    expect(await runCli(['diff', 'old'], { cwd: dir })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing NEW'),
    });
    expect((await runCli(['diff', 'old', 'new', 'more'], { cwd: dir })).code).toBe(2);
    const missing = await runCli(['diff', 'old', 'nope'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read `nope`');
  });
});

describe('dsh-mode diff git:REV:path', () => {
  const plan = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');

  it('exits 1 with --fail-on-escalation when a change allows `write` in plan, naming the rule and line', async () => {
    const dir = repo({ 'policies/plan.yaml': plan });
    const changed = plan.replace('  grep: allow\n', '  grep: allow\n  write: allow\n');
    writeFileSync(join(dir, 'policies/plan.yaml'), changed);
    const line = changed.split('\n').indexOf('  write: allow') + 1;
    const result = await runCli(
      ['diff', 'git:HEAD:policies', 'policies', '--no-builtin', '--fail-on-escalation'],
      { cwd: dir },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `mode \`plan\`, tool \`write\`: deny → allow by \`write\` at policies/plan.yaml:${line}:3`,
    );
    expect(result.stdout).toMatch(/\(was `default` at git:HEAD:policies\/plan\.yaml:\d+:1\)/);
  });

  it('compares two revisions, a single file in each, and reports files as git:REV:path', async () => {
    const dir = repo({ 'ops/plan.yaml': 'mode: plan\ntools:\n  web_fetch: deny\n' });
    writeFileSync(
      join(dir, 'ops/plan.yaml'),
      'mode: plan\noverride: true\ntools:\n  bash: allow\ndefault: deny\n',
    );
    git(dir, 'commit', '-qam', 'widen plan');
    const result = await runCli(
      ['diff', 'git:HEAD~1:ops/plan.yaml', 'git:HEAD:ops/plan.yaml', '--format', 'json'],
      { cwd: dir },
    );
    expect(result.code).toBe(0);
    const rows = json(result).rows as Row[];
    const bash = rows.find((r) => r.mode === 'plan' && r.tool.label === 'bash')!;
    expect(bash.change).toBe('escalation');
    expect(bash.after.rule).toEqual({ selector: 'bash', file: 'git:HEAD:ops/plan.yaml', line: 4, column: 3 });
    // With the built-in plan loaded, `override: true` is what lets the operator file widen plan.
    expect(rows.find((r) => r.mode === 'plan' && r.tool.label === 'read')!.change).toBe('narrowing');
  });

  it('keeps the built-in ceiling: an operator file without override cannot escalate plan', async () => {
    const dir = repo({ 'ops/plan.yaml': 'mode: plan\ntools:\n  web_fetch: deny\n' });
    writeFileSync(join(dir, 'ops/plan.yaml'), 'mode: plan\ntools:\n  web_fetch: deny\n  write: allow\n');
    const result = await runCli(['diff', 'git:HEAD:ops', 'ops', '--fail-on-escalation', '--format', 'json'], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect((json(result).rows as Row[]).find((r) => r.tool.label === 'write')!.change).toBe('unchanged');
  });

  it('exits 2 for an unknown revision or a path the revision lacks', async () => {
    const dir = repo({ 'policies/plan.yaml': plan });
    const badRev = await runCli(['diff', 'git:no-such-rev:policies', 'policies'], { cwd: dir });
    expect(badRev.code).toBe(2);
    expect(badRev.stderr).toContain('cannot read `git:no-such-rev:policies`');
    const badPath = await runCli(['diff', 'git:HEAD:elsewhere', 'policies'], { cwd: dir });
    expect(badPath.code).toBe(2);
    expect(badPath.stderr).toContain("path 'elsewhere' does not exist in 'HEAD'");
  });
});

describe('classify', () => {
  const cell = (decision: 'allow' | 'ask' | 'deny', selector = 'x', reason: string | null = null) => ({
    decision,
    visible: decision !== 'deny',
    reason,
    rule: { selector, file: null, line: null, column: null },
  });

  it('calls every move towards allow an escalation and every move towards deny a narrowing', () => {
    expect(classify(cell('deny'), cell('ask'))).toBe('escalation');
    expect(classify(cell('deny'), cell('allow'))).toBe('escalation');
    expect(classify(cell('ask'), cell('allow'))).toBe('escalation');
    expect(classify(cell('allow'), cell('ask'))).toBe('narrowing');
    expect(classify(cell('ask'), cell('deny'))).toBe('narrowing');
  });

  it('tells a new deciding selector or reason from no change', () => {
    expect(classify(cell('deny', 'a'), cell('deny', 'a'))).toBe('unchanged');
    expect(classify(cell('deny', 'a'), cell('deny', 'b'))).toBe('rule-changed');
    expect(classify(cell('deny', 'a', 'x'), cell('deny', 'a', 'y'))).toBe('rule-changed');
  });
});

describe('parseGitSpec', () => {
  it('splits the revision at the first colon and keeps the rest as the path', () => {
    expect(parseGitSpec('git:origin/main:policies/')).toEqual({ rev: 'origin/main', path: 'policies' });
    expect(parseGitSpec('git:HEAD~1:a:b.yaml')).toEqual({ rev: 'HEAD~1', path: 'a:b.yaml' });
    expect(parseGitSpec('git:HEAD')).toEqual({ rev: 'HEAD', path: '' });
  });

  it('is undefined for plain paths and for a missing revision', () => {
    expect(parseGitSpec('policies')).toBeUndefined();
    expect(parseGitSpec('git::policies')).toBeUndefined();
  });
});
