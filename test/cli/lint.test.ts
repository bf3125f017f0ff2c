/**
 * `dsh-mode lint`, end to end in temp folders built from inline objects: in process through `main()`, and one
 * run of the built binary as a child process. Pins the exit codes (0 clean, 1 errors or too many warnings, 2 usage
 * or I/O) and the `--format json` contract.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

const REVIEW = 'mode: review\ntools:\n  read: allow\n  exit_plan_mode: ask\ndefault: deny\n';
const JSON_KEYS = ['file', 'line', 'column', 'endLine', 'endColumn', 'severity', 'rule', 'message'];

describe('dsh-mode lint', () => {
  it('exits 0 on the repository policies, from the repository root, noting the subfolder it did not read', async () => {
    const result = await runCli(['lint'], { cwd: ROOT });
    expect(result.stderr).toBe(
      'note: `policies/examples/` was not read: folders are read one level deep; name it to lint it\n',
    );
    expect(result.code).toBe(0);
  });

  describe('nothing checked never looks like all clean', () => {
    it('a named folder that is empty, or holds only other files, is an error (exit 2)', async () => {
      const dir = makeTree({ 'other/README.md': '# not a policy\n', 'empty/.keep': '' });
      for (const folder of ['empty', 'other/']) {
        const result = await runCli(['lint', folder], { cwd: dir });
        expect(result.code).toBe(2);
        expect(result.stdout).toContain(
          `1:1  error    no policy files in \`${folder}\`: a folder contributes its *.yaml, *.yml and *.json files  io`,
        );
      }
    });

    it('a folder whose policies are in subfolders names them: they are not read', async () => {
      const dir = makeTree({
        'pol/team/review.yaml': REVIEW,
        'pol/ops/x.yml': REVIEW.replace('review', 'ops'),
      });
      const result = await runCli(['lint', 'pol'], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('help: subfolders are not read: name them, for example `pol/ops/`');
      const both = makeTree({ 'pol/a.yaml': REVIEW, 'pol/team/b.yaml': REVIEW.replace('review', 'ops') });
      const mixed = await runCli(['lint', 'pol'], { cwd: both });
      expect(mixed.code).toBe(0);
      expect(mixed.stderr).toBe(
        'note: `pol/team/` was not read: folders are read one level deep; name it to lint it\n',
      );
      expect((await runCli(['lint', 'pol', 'pol/team'], { cwd: both })).code).toBe(0);
    });

    it('no PATH and no policies/ folder: says only the built-in plan was linted; with --no-builtin, exit 2', async () => {
      const dir = makeTree({ 'README.md': 'x\n' });
      const result = await runCli(['lint'], { cwd: dir });
      expect(result).toEqual({
        code: 0,
        stdout: '',
        stderr: 'note: no PATH given and no `policies/` folder here: only the built-in plan was linted\n',
      });
      const nothing = await runCli(['lint', '--no-builtin'], { cwd: dir });
      expect(nothing.code).toBe(2);
      expect(nothing.stderr).toContain('error: nothing to lint');
    });

    it('an empty policies/ that no PATH names is no input (the built-in plan alone); named, it is an error', async () => {
      const trees: Record<string, string>[] = [
        { 'policies/.keep': '' },
        { 'policies/README.md': '# later\n' },
      ];
      for (const files of trees) {
        const dir = makeTree(files);
        expect(await runCli(['lint'], { cwd: dir })).toEqual({
          code: 0,
          stdout: '',
          stderr:
            'note: no PATH given and no policy file in `policies/`: only the built-in plan was linted\n',
        });
        const nothing = await runCli(['lint', '--no-builtin'], { cwd: dir });
        expect(nothing.code).toBe(2);
        expect(nothing.stderr).toContain(
          'error: nothing to lint: no PATH given and no policy file in `policies/`, and `--no-builtin`',
        );
        const named = await runCli(['lint', 'policies'], { cwd: dir });
        expect(named.code).toBe(2);
        expect(named.stdout).toContain('no policy files in `policies`');
      }
      // Policies only in its subfolders: loaded, so the error names them (they would be missed otherwise).
      const nested = makeTree({ 'policies/team/review.yaml': REVIEW });
      const result = await runCli(['lint'], { cwd: nested });
      expect(result.code).toBe(2);
      expect(result.stdout).toContain(
        'help: subfolders are not read: name them, for example `policies/team/`',
      );
    });

    it('a policies entry of cordis.yml that does not exist is reported at the entry', async () => {
      const dir = makeTree({
        'cordis.yml':
          '- name: host\n- name: mode\n  config:\n    policies:\n      - nope.yaml\n- name: demo\n',
      });
      const result = await runCli(['lint', 'cordis.yml'], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toMatch(
        /cordis\.yml\n {2}5:9 {2}error {4}policy file `nope\.yaml` does not exist {2}io\n/,
      );
    });
  });

  it('never prints a raw control character from a policy key or value: each is spelled out', async () => {
    // YAML escapes put an ESC (a terminal's title and clear-screen sequences) and a BEL into keys and a reason.
    const dir = makeTree({
      'policies/r.yaml':
        'mode: review\ntools:\n  "\\x1b]0;owned\\x07": "al\\x1bow"\n  "re\\x1b[2Jad": allow\n  "re\\x1b[2Jad ": allow\n' +
        '  "wr\\u202eite": { decision: deny, reason: "no\\x07" }\ndefault: deny\n',
    });
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;
    for (const format of ['stylish', 'github']) {
      const run = await runCli(['lint', '--format', format], { cwd: dir });
      expect(run.code).toBe(1);
      expect(raw.test(run.stdout), JSON.stringify(run.stdout)).toBe(false);
      expect(run.stdout).toContain('`tools.\\x1b]0;owned\\x07`');
      expect(run.stdout).toContain('`al\\x1bow` is not a decision');
    }
  });

  it('says "1 warning", not "1 warnings", over --max-warnings', async () => {
    const dir = makeTree({ 'policies/t.yaml': 'mode: trap\ndefault: deny\n' });
    const result = await runCli(['lint', '--max-warnings', '0'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: 1 warning: more than the maximum of 0 (--max-warnings)\n');
  });

  it('exits 0 on the repository examples too', async () => {
    expect((await runCli(['lint', 'policies', 'policies/examples'], { cwd: ROOT })).code).toBe(0);
  });

  it('exits 0 and prints nothing for a clean folder', async () => {
    const dir = makeTree({ 'policies/review.yaml': REVIEW });
    const result = await runCli(['lint'], { cwd: dir });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('reports a misspelt key with a did-you-mean at its line (`tool:` for `tools:`; the built binary)', () => {
    const dir = makeTree({ 'policies/review.yaml': 'mode: review\ndescription: x\ntool:\n  read: allow\n' });
    const result = dshMode(['lint'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('policies/review.yaml');
    expect(result.stdout).toMatch(
      / {2}3:1 {2}error {4}unknown key `tool`: did you mean `tools`\? {2}unknown-key/,
    );
    expect(result.stdout).toContain('✖ 1 problem (1 error, 0 warnings, 0 info)');
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('prints the JSON contract exactly', async () => {
    const dir = makeTree({ 'a.yaml': 'mode: review\ntool:\n  read: allow\n' });
    const out = json(await runCli(['lint', 'a.yaml', '--format', 'json'], { cwd: dir }));
    expect(Object.keys(out).slice(0, 3)).toEqual(['diagnostics', 'errorCount', 'warningCount']);
    expect(out.errorCount).toBe(1);
    expect(out.warningCount).toBe(0);
    const [d] = out.diagnostics as Record<string, unknown>[];
    expect(Object.keys(d!).slice(0, JSON_KEYS.length)).toEqual(JSON_KEYS);
    expect(d).toMatchObject({
      file: 'a.yaml',
      line: 2,
      column: 1,
      endLine: 2,
      endColumn: 5,
      severity: 'error',
      rule: 'unknown-key',
      message: 'unknown key `tool`: did you mean `tools`?',
    });
  });

  it('reports lint findings with their rule ids and positions in JSON', async () => {
    const dir = makeTree({
      'p.yaml':
        'mode: review\ntools:\n  "mcp__*": deny\n  "*_read": allow\n  exit_plan_mode: allow\ntests:\n  - { tool: read, expect: allow }\n',
    });
    const out = json(await runCli(['lint', 'p.yaml', '--format', 'json', '--no-builtin'], { cwd: dir }));
    const rows = (out.diagnostics as Record<string, unknown>[]).map((d) => [
      d.rule,
      d.severity,
      d.line,
      d.column,
    ]);
    expect(rows).toEqual([
      ['conflicting-globs', 'error', 4, 3],
      ['exit-without-approval', 'warning', 5, 3],
      ['failing-test', 'error', 7, 5],
    ]);
    expect(out.errorCount).toBe(2);
    expect(out.warningCount).toBe(1);
  });

  it('fails on warnings only over --max-warnings', async () => {
    const dir = makeTree({ 'p.yaml': 'mode: auto\ntools:\n  read: allow\n  exit_plan_mode: allow\n' });
    expect((await runCli(['lint', 'p.yaml'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['lint', 'p.yaml', '--max-warnings', '1'], { cwd: dir })).code).toBe(0);
    const over = await runCli(['lint', 'p.yaml', '--max-warnings', '0'], { cwd: dir });
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('more than the maximum of 0');
  });

  it('loads the built-in plan first, unless --no-builtin', async () => {
    const dir = makeTree({ 'p.yaml': 'mode: plan\ntests:\n  - { tool: read, expect: allow }\n' });
    expect((await runCli(['lint', 'p.yaml'], { cwd: dir })).code).toBe(0);
    const alone = await runCli(['lint', 'p.yaml', '--no-builtin', '--format', 'json'], { cwd: dir });
    expect(alone.code).toBe(1);
    // Alone, the document denies everything: its test fails, and the mode is a trap.
    expect(json(alone).diagnostics).toMatchObject([
      { rule: 'trap-mode', line: 1, column: 1 },
      { rule: 'failing-test', line: 3, column: 5 },
    ]);
  });

  it('lints against an MCP tools/list catalog with --tools', async () => {
    const dir = makeTree({
      'p.yaml': 'mode: review\ntools:\n  raed: allow\n  exit_plan_mode: ask\ndefault: deny\n',
      'tools.json': { tools: [{ name: 'read', annotations: { readOnlyHint: true } }, { name: 'write' }] },
    });
    const out = json(
      await runCli(['lint', 'p.yaml', '--tools', 'tools.json', '--format', 'json', '--no-builtin'], {
        cwd: dir,
      }),
    );
    expect(out.diagnostics).toEqual([
      expect.objectContaining({
        rule: 'unmatched-rule',
        severity: 'warning',
        line: 3,
        help: 'did you mean `read`?',
      }),
      expect.objectContaining({ rule: 'default-decided', severity: 'info', line: 5 }),
      expect.objectContaining({ rule: 'default-decided', severity: 'info', line: 5 }),
    ]);
  });

  it('exits 2 for a path that does not exist', async () => {
    const dir = makeTree({});
    const result = await runCli(['lint', 'nope.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('cannot read `nope.yaml`: no such file or folder');
  });

  it('exits 2 for a catalog that cannot be read or is not a catalog', async () => {
    const dir = makeTree({ 'p.yaml': REVIEW, 'bad.json': { tools: 'no' } });
    expect((await runCli(['lint', 'p.yaml', '--tools', 'missing.json'], { cwd: dir })).code).toBe(2);
    const bad = await runCli(['lint', 'p.yaml', '--tools', 'bad.json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('invalid-catalog');
  });

  it('exits 2 with a clear message on usage errors', async () => {
    const dir = makeTree({ 'p.yaml': REVIEW });
    const unknown = await runCli(['lint', '--fromat', 'json'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error: unknown option `--fromat`');
    expect(unknown.stderr).toContain('help: did you mean `--format`?');
    expect(unknown.stderr).toContain('usage: dsh-mode lint');
    const format = await runCli(['lint', '--format', 'xml'], { cwd: dir });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('option `--format` does not accept `xml`');
    expect((await runCli(['lint', '--max-warnings', 'many'], { cwd: dir })).code).toBe(2);
    expect((await runCli(['lint', '--tools'], { cwd: dir })).code).toBe(2);
  });

  it('colours stylish output in a pipe only with FORCE_COLOR, and never under FORCE_COLOR=0', async () => {
    const dir = makeTree({ 'a.yaml': 'mode: review\ntool: {}\n' });
    expect((await runCli(['lint', 'a.yaml'], { cwd: dir })).stdout).not.toContain('\u001b[');
    expect((await runCli(['lint', 'a.yaml'], { cwd: dir, env: { FORCE_COLOR: '0' } })).stdout).not.toContain(
      '\u001b[',
    );
    expect((await runCli(['lint', 'a.yaml'], { cwd: dir, env: { NO_COLOR: '1' } })).stdout).not.toContain(
      '\u001b[',
    );
    const forced = (await runCli(['lint', 'a.yaml'], { cwd: dir, env: { FORCE_COLOR: '1' } })).stdout;
    expect(forced).toContain('\u001b[4ma.yaml\u001b[0m');
    expect(
      (await runCli(['lint', 'a.yaml', '--format', 'json'], { cwd: dir, env: { FORCE_COLOR: '1' } })).stdout,
    ).not.toContain('\u001b[');
  });
});
