/**
 * One exit-code rule (the README's table) for the policy commands (`lint`, `check`, `matrix`, `diff`) and for
 * `chat` and `trust`: 0 done, 1 the inputs were read and are wrong (a policy that does not load, findings, an
 * unknown mode, a `cordis.yml` that `trust` finds invalid), 2 an input cannot be read, the command cannot run or
 * the command line is wrong. And output fit for CI: the built-in plan is `dsh-mode:policies/plan.yaml` in every
 * format (never the install path), and `--format github` keeps infos to one summary notice. In process, real files.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli, type CliResult } from './run-in-process.js';
import { dshMode, makeTree, ROOT } from './run.js';

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

/**
 * `chat` through `main()` in process: the chat writes to the process's stderr itself (it owns the terminal), so
 * the run captures that stream for its duration.
 */
async function chatInProcess(argv: string[], cwd: string): Promise<CliResult> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const run = await runCli(['chat', ...argv], { cwd, env: { DEEPSEEK_API_KEY: undefined } });
    return { ...run, stderr: run.stderr + stderr };
  } finally {
    spy.mockRestore();
  }
}

describe('the same rule for chat and trust', () => {
  const dir = makeTree({
    'script.json': '[]',
    'no-modes.yml': '- name: host\n- name: scripted\n  config: { script: script.json }\n',
    'bad.yml': '- name: host\n- name: hots\n',
  });
  const config = { DSH_MODE_CONFIG_DIR: join(dir, 'config') };

  it('chat: 1 for an unknown --mode (the modes are listed), 2 for a session that cannot be resumed', async () => {
    const unknown = await chatInProcess(
      ['--model-script', 'script.json', '--mode', 'nope', '--prompt', 'x'],
      dir,
    );
    expect(unknown.code, unknown.stderr).toBe(1);
    expect(unknown.stderr).toContain('unknown mode `nope`; available modes: default, plan');
    const none = await chatInProcess(['--config', 'no-modes.yml', '--mode', 'plan', '--prompt', 'x'], dir);
    expect(none.code, none.stderr).toBe(1);
    expect(none.stderr).toContain('unknown mode `plan`: this deployment has no mode plugin');
    const resume = await chatInProcess(['--model-script', 'script.json', '--resume', 'no-such-session'], dir);
    expect(resume.code, resume.stderr).toBe(2);
    const broken = await chatInProcess(['--config', 'bad.yml', '--mode', 'nope', '--prompt', 'x'], dir);
    expect(broken.code, broken.stderr).toBe(2);
    expect(broken.stderr).toContain('the deployment cannot start');
  });

  it('trust: 1 for a file that is not a valid deployment, 2 for one that cannot be read; nothing recorded', async () => {
    const invalid = await runCli(['trust', 'bad.yml'], { cwd: dir, env: config });
    expect(invalid.code, invalid.stderr).toBe(1);
    expect(invalid.stderr).toContain('bad.yml:2:9: unknown plugin `hots`');
    expect(invalid.stderr).toContain('error: bad.yml is not a valid deployment; nothing was recorded');
    const missing = await runCli(['trust', 'missing.yml'], { cwd: dir, env: config });
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain('cannot read missing.yml: no such file');
    const binary = dshMode(['trust', 'bad.yml'], dir, config);
    expect(binary.code, binary.stderr).toBe(1);
    expect(binary.stderr).toBe(invalid.stderr);
    const list = await runCli(['trust', '--list'], { cwd: dir, env: config });
    expect(list.stdout).toMatch(/^no trusted files/);
  });
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
      let text = (await runCli(['lint', '--tools', 'tools.json', '--format', format], { cwd: dir })).stdout;
      if (format === 'sarif') {
        // The tool's own documentation is the one absolute address SARIF names: the installed README.
        const log = JSON.parse(text);
        expect(log.runs[0].tool.driver.informationUri).toMatch(/^file:\/\/.*\/README\.md$/);
        delete log.runs[0].tool.driver.informationUri;
        text = JSON.stringify(log);
      }
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
