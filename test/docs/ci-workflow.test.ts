/**
 * The example workflow of docs/ci.md, run as written: the `run:` steps of its `diff` job, taken from the page's
 * YAML, run in order with `bash -e` (as GitHub runs them) in a scratch git repository with a base branch
 * (`origin/main`) and a pull request's head commit. `${{ … }}` expressions and `if:` conditions are evaluated for
 * the few forms the job uses (any other form fails the test, so the page cannot drift from what is tested);
 * `$GITHUB_OUTPUT` is a file per step; `gh` is a stub first on `PATH` that records what would be posted (and,
 * like gh, fails `--edit-last` when there is no comment yet). `uses:` steps are GitHub's own and are skipped;
 * `npm ci` is skipped too (the install is test/docs/install.test.ts's): `node_modules/dsh-mode` links to this
 * checkout, built.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../..');

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}

/** The steps of a job of the workflow docs/ci.md shows. */
function workflowJob(job: string): Step[] {
  const page = readFileSync(join(root, 'docs/ci.md'), 'utf8');
  const block = /^```yaml\n(# \.github\/workflows\/policies\.yml\n[\s\S]*?)^```$/m.exec(page)?.[1];
  if (!block) throw new Error('docs/ci.md has no workflow block');
  const steps = (parse(block) as { jobs: Record<string, { steps: Step[] }> }).jobs[job]?.steps;
  if (!steps) throw new Error(`the workflow has no job \`${job}\``);
  return steps;
}

/** What the pull request's context holds, for `${{ … }}`. */
const CONTEXT: Record<string, string> = {
  'github.base_ref': 'main',
  'github.event.pull_request.number': '7',
  'github.token': 'not-a-token',
};

/** `${{ expr }}` in a text, for the context values above; anything else is a test failure. */
function substitute(text: string): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    if (!Object.hasOwn(CONTEXT, expr)) throw new Error(`unsupported expression \${{ ${expr} }}`);
    return CONTEXT[expr]!;
  });
}

/**
 * An `if:` condition: `&&` of `always()`, `success()` and `steps.ID.outputs.KEY (==|!=) 'text'`. Without a status
 * function it means `success() && …`, as on GitHub.
 */
function condition(text: string | undefined, failed: boolean, outputs: Map<string, string>): boolean {
  const terms = (text ?? 'success()').split('&&').map((t) => t.trim());
  if (!terms.some((t) => t === 'always()' || t === 'success()')) terms.unshift('success()');
  return terms.every((term) => {
    if (term === 'always()') return true;
    if (term === 'success()') return !failed;
    const m = /^steps\.([\w-]+)\.outputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'$/.exec(term);
    if (!m) throw new Error(`unsupported condition \`${term}\``);
    const value = outputs.get(`${m[1]}.${m[2]}`) ?? '';
    return m[3] === '==' ? value === m[4] : value !== m[4];
  });
}

/** A `gh` that records each call (its arguments and the body file's text) as a JSON line in `$GH_LOG`. */
const GH_STUB = `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
const file = args[args.indexOf('--body-file') + 1];
const posted = fs.existsSync(process.env.GH_LOG)
  ? fs.readFileSync(process.env.GH_LOG, 'utf8').split('\\n').filter(Boolean).map((l) => JSON.parse(l)).filter((c) => c.ok)
  : [];
const ok = !(args.includes('--edit-last') && posted.length === 0);
fs.appendFileSync(process.env.GH_LOG, JSON.stringify({ args, body: fs.readFileSync(file, 'utf8'), ok }) + '\\n');
if (!ok) { process.stderr.write('no comments found for current user\\n'); process.exit(1); }
`;

interface GhCall {
  args: string[];
  body: string;
  ok: boolean;
}

interface JobRun {
  /** Each step: ran or skipped, and its exit code. */
  steps: { name: string; ran: boolean; code: number | null; output: string }[];
  failed: boolean;
  gh: GhCall[];
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A repository whose `origin/main` has `base` and whose checked-out head has `head` (null deletes a file). */
function repository(base: Record<string, string>, head: Record<string, string | null>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-ci-workflow-'));
  scratch.push(dir);
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  const write = (files: Record<string, string | null>) => {
    for (const [path, text] of Object.entries(files)) {
      if (text === null) rmSync(join(dir, path));
      else {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
    }
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'ci@example.com');
  git('config', 'user.name', 'CI');
  git('config', 'commit.gpgsign', 'false');
  write({ 'README.md': '# project\n', '.gitignore': 'node_modules/\n', ...base });
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  git('checkout', '-q', '-b', 'change');
  write(head);
  git('add', '-A');
  git('commit', '-q', '-m', 'the pull request');
  // What `npm ci` gives the job: the package and its bin.
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/dsh-mode'));
  symlinkSync(join(root, 'bin/dsh-mode.mjs'), join(dir, 'node_modules/.bin/dsh-mode'));
  return dir;
}

/**
 * Runs a job's steps in `dir` as GitHub would.
 * @param replace a step's `run:` text replaced (to make an earlier step fail)
 */
function runJob(dir: string, steps: Step[], replace: Record<string, string> = {}): JobRun {
  const tools = join(dir, '..', `${dir.split('/').pop()}-bin`);
  mkdirSync(tools, { recursive: true });
  scratch.push(tools);
  writeFileSync(join(tools, 'gh'), GH_STUB);
  chmodSync(join(tools, 'gh'), 0o755);
  const log = join(tools, 'gh.jsonl');
  const outputs = new Map<string, string>();
  const run: JobRun = { steps: [], failed: false, gh: [] };
  for (const [index, step] of steps.entries()) {
    const name = step.name ?? step.run?.split('\n')[0] ?? step.uses ?? `step ${index + 1}`;
    if (step.uses !== undefined) continue;
    let script = step.run!.trim();
    if (Object.hasOwn(replace, script)) script = replace[script]!;
    else if (script === 'npm ci') continue;
    if (!condition(step.if, run.failed, outputs)) {
      run.steps.push({ name, ran: false, code: null, output: '' });
      continue;
    }
    const outputFile = join(tools, `output-${index}`);
    writeFileSync(outputFile, '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${tools}:${process.env.PATH}`,
      GITHUB_OUTPUT: outputFile,
      GH_LOG: log,
      NO_COLOR: '1',
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    };
    for (const [key, value] of Object.entries(step.env ?? {})) env[key] = substitute(String(value));
    writeFileSync(join(tools, `step-${index}.sh`), substitute(script));
    const result = spawnSync('bash', ['-e', join(tools, `step-${index}.sh`)], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    run.steps.push({ name, ran: true, code: result.status, output: result.stdout + result.stderr });
    if (result.status !== 0) run.failed = true;
    for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
      const eq = line.indexOf('=');
      if (step.id !== undefined && eq > 0) outputs.set(`${step.id}.${line.slice(0, eq)}`, line.slice(eq + 1));
    }
  }
  run.gh = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as GhCall)
    : [];
  return run;
}

const AUDIT = 'mode: audit\ntools:\n  read: allow\ndefault: deny\n';

describe('the workflow of docs/ci.md, job `diff`', () => {
  const steps = workflowJob('diff');

  it('runs the steps it is about: the diff, the comment, the gate', () => {
    expect(steps.filter((s) => s.run !== undefined).map((s) => s.run!.split('\n')[0])).toHaveLength(4);
    expect(steps.find((s) => s.id === 'diff')?.run).toContain('dsh-mode diff');
    expect(steps.some((s) => s.run?.includes('gh pr comment'))).toBe(true);
  });

  it('compares the pull request that adds policies/ with the built-in plan alone, and comments the diff', () => {
    const dir = repository({}, { 'policies/audit.yaml': AUDIT });
    const run = runJob(dir, steps);
    const posted = run.gh.filter((c) => c.ok);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.args.slice(0, 3)).toEqual(['pr', 'comment', '7']);
    const body = posted[0]!.body;
    expect(body).not.toContain('could not compare');
    expect(body).toContain('audit');
    expect(body).toContain('node_modules/dsh-mode/policies/plan.yaml');
    // A new mode that allows `read` is an escalation: the gate fails the check, with the rule that did it.
    const gate = run.steps.at(-1)!;
    expect(gate).toMatchObject({ ran: true, code: 1 });
    expect(gate.output).toContain(
      'mode `audit`, tool `read`: deny → allow by `read` at policies/audit.yaml:3:3',
    );
    expect(run.failed).toBe(true);
  });

  it('comments why when the policies do not load, never an empty comment, and fails the check', () => {
    const dir = repository(
      { 'policies/audit.yaml': AUDIT },
      { 'policies/audit.yaml': 'mode: audit\ntools:\n  read: maybe\n' },
    );
    const run = runJob(dir, steps);
    const posted = run.gh.filter((c) => c.ok);
    expect(posted).toHaveLength(1);
    const body = posted[0]!.body;
    expect(body.split('\n')[0]).toBe('**dsh-mode diff could not compare the policies:**');
    // The errors as diff printed them: the file, line:column, the rule, and which side did not load.
    expect(body).toContain('policies/audit.yaml\n  3:9  error    `maybe` is not a decision for `tools.read`');
    expect(body).toContain('invalid-decision');
    expect(body).toContain('policies (NEW) cannot load, so nothing is compared');
    expect(run.steps.at(-1)).toMatchObject({ ran: true, code: 1 });
  });

  it('comments a narrowing and passes; a second run edits its comment instead of adding one', () => {
    const dir = repository(
      { 'policies/audit.yaml': AUDIT },
      { 'policies/audit.yaml': 'mode: audit\ntools:\n  read: ask\ndefault: deny\n' },
    );
    const first = runJob(dir, steps);
    expect(first.failed).toBe(false);
    expect(first.steps.at(-1)).toMatchObject({ ran: false });
    const comment = first.gh.filter((c) => c.ok);
    expect(comment).toHaveLength(1);
    expect(comment[0]!.args).not.toContain('--edit-last');
    expect(comment[0]!.body).toContain('audit');
    expect(comment[0]!.body).toContain('ask');
    const second = runJob(dir, steps);
    const calls = second.gh.slice(first.gh.length);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ ok: true, body: comment[0]!.body });
    expect(calls[0]!.args).toContain('--edit-last');
  });

  it('posts nothing when the job failed before the diff ran', () => {
    const dir = repository({}, { 'policies/audit.yaml': AUDIT });
    const run = runJob(dir, steps, { 'npm ci': 'exit 1' });
    expect(run.gh).toEqual([]);
    expect(run.steps.filter((s) => s.ran).map((s) => s.name)).toEqual(['npm ci']);
    expect(run.failed).toBe(true);
  });
});
