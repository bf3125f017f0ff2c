/**
 * `dsh-mode check MODE TOOL --args JSON`, end to end through the built binary: paths resolve against the current
 * folder or `--workspace DIR` (symlinks followed), the JSON output adds `subject`, `pattern` and `message`, and
 * bad `--args` are usage errors.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dshMode, json } from './run.js';

const POLICY = [
  'mode: guarded',
  'tools:',
  '  read:',
  '    decision: allow',
  '    paths:',
  '      ".env*": { decision: deny, reason: secrets stay out }',
  '  write:',
  '    decision: deny',
  '    paths:',
  '      "notes/**": allow',
  '  bash:',
  '    decision: deny',
  '    commands:',
  '      "git log **": allow',
  'default: deny',
  '',
].join('\n');

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-check-args-')));
  mkdirSync(join(dir, 'notes'));
  mkdirSync(join(dir, 'elsewhere'));
  writeFileSync(join(dir, 'p.yaml'), POLICY);
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  symlinkSync('../.env', join(dir, 'notes', 'env-link'));
  symlinkSync(join(dir, 'elsewhere'), join(dir, 'notes', 'out'));
  return dir;
}

function check(dir: string, tool: string, args: object | string, ...rest: string[]) {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return dshMode(['check', 'guarded', tool, 'p.yaml', '--no-builtin', '--args', text, ...rest], dir);
}

describe('dsh-mode check --args', () => {
  it('decides a path by its pattern and prints subject, pattern and the gate message', () => {
    const dir = workspace();
    const out = json(check(dir, 'read', { path: '.env.local' }, '--format', 'json'));
    expect(out).toMatchObject({
      decision: 'deny',
      visible: true,
      reason: 'secrets stay out',
      rule: { selector: 'read', file: 'p.yaml', line: 3, column: 3 },
      subject: '.env.local',
      pattern: { selector: '.env*', file: 'p.yaml', line: 6, column: 7 },
    });
    expect(out.message).toBe(
      'tool "read" is not available in guarded mode: ".env.local" is denied by `.env*` at p.yaml:6:7: secrets stay out',
    );
    const text = check(dir, 'read', { path: '.env.local' });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('mode `guarded`, tool `read`: deny');
    expect(text.stdout).toContain('  subject  ".env.local"');
    expect(text.stdout).toContain('  pattern  .env* at p.yaml:6:7');
  });

  it('follows symlinks inside the current folder: a link to `.env` is denied, a link out never allowed', () => {
    const dir = workspace();
    const link = json(check(dir, 'read', { path: 'notes/env-link' }, '--format', 'json'));
    expect(link).toMatchObject({ decision: 'deny', pattern: { selector: '.env*' } });
    expect(json(check(dir, 'write', { path: 'notes/a.md' }, '--format', 'json')).decision).toBe('allow');
    // notes/out links to a folder outside `notes/`: the target must match the allow too.
    expect(json(check(dir, 'write', { path: 'notes/out/a.md' }, '--format', 'json')).decision).toBe('deny');
  });

  it('resolves against --workspace DIR instead of the current folder', () => {
    const dir = workspace();
    const sub = join(dir, 'elsewhere');
    writeFileSync(join(sub, 'p.yaml'), POLICY);
    // From `elsewhere`, `../notes/a.md` is outside the current folder; with --workspace it is inside.
    expect(json(check(sub, 'write', { path: '../notes/a.md' }, '--format', 'json')).decision).toBe('deny');
    const inside = check(sub, 'write', { path: 'notes/a.md' }, '--workspace', dir, '--format', 'json');
    expect(json(inside)).toMatchObject({ decision: 'allow', subject: 'notes/a.md' });
  });

  it('keeps the JSON contract without --args', () => {
    const dir = workspace();
    const out = json(
      dshMode(['check', 'guarded', 'read', 'p.yaml', '--no-builtin', '--format', 'json'], dir),
    );
    // `read` has path patterns: without the path it asks, and the hint says why.
    expect(Object.keys(out)).toEqual(['mode', 'tool', 'decision', 'visible', 'reason', 'rule', 'hint']);
    expect(out.hint).toMatch(/^`read` decides by the call's `path`, and without --args there is none/);
  });

  it('reports a script subject and its commands', () => {
    const dir = workspace();
    const allowed = json(check(dir, 'bash', { command: 'git log -5' }, '--format', 'json'));
    expect(allowed).toMatchObject({ decision: 'allow', subject: 'git log -5' });
    const out = json(check(dir, 'bash', { command: 'git log -5 && rm -rf notes' }, '--format', 'json'));
    expect(out).toMatchObject({ decision: 'deny', subject: 'rm -rf notes' });
    const bashRule = { selector: 'bash', file: 'p.yaml', line: 11, column: 3 };
    expect(out.commands).toEqual([
      {
        text: 'git log -5',
        decision: 'allow',
        rule: bashRule,
        pattern: { selector: 'git log **', file: 'p.yaml', line: 14, column: 7 },
      },
      { text: 'rm -rf notes', decision: 'deny', rule: bashRule },
    ]);
    expect(out.message).toBe(
      'tool "bash" is not available in guarded mode: "rm -rf notes" matches no pattern of `bash`',
    );
    const text = check(dir, 'bash', { command: 'git log -5 && rm -rf notes' }).stdout;
    expect(text).toContain('  commands\n');
    expect(text).toContain('    allow  "git log -5"  by git log ** at p.yaml:14:7');
    expect(text).toContain('    deny   "rm -rf notes"  by bash at p.yaml:11:3');
  });

  it('rejects --args that are not a JSON object, and --workspace without --args', () => {
    const dir = workspace();
    for (const bad of ['{', '[1]', '"x"', 'null']) {
      const r = check(dir, 'read', bad);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain('`--args`');
    }
    const r = dshMode(['check', 'guarded', 'read', 'p.yaml', '--workspace', dir], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('`--workspace` needs `--args`');
  });

  it('answers for git as the gate does: withheld in a repository whose config names a program', () => {
    const dir = workspace();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    expect(json(check(dir, 'bash', { command: 'git log -1' }, '--format', 'json')).decision).toBe('allow');
    execFileSync('git', ['config', 'core.fsmonitor', 'touch pwned'], { cwd: dir });
    const out = json(check(dir, 'bash', { command: 'git log -1' }, '--format', 'json'));
    expect(out).toMatchObject({ decision: 'deny', subject: 'git log -1' });
    expect(out.message).toContain(
      '"git log -1" matches `git log **` at p.yaml:14:7, but the repository\'s own configuration sets `core.fsmonitor`',
    );
  });
});
