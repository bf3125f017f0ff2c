/**
 * `dsh-mode diff` and the `sandbox` key: a mode whose program tools go from the read-only sandbox to none is an
 * escalation (listed, and failing `--fail-on-escalation`), the reverse a narrowing; a key that moves lines, or a
 * mode that keeps its setting, is no change. In process through `main`, on real files.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';

function sides(old: string, now: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-diff-sandbox-')));
  mkdirSync(join(dir, 'old'));
  mkdirSync(join(dir, 'new'));
  writeFileSync(join(dir, 'old', 'm.yaml'), old);
  writeFileSync(join(dir, 'new', 'm.yaml'), now);
  return dir;
}

const diff = (cwd: string, ...more: string[]) =>
  runCli(['diff', 'old', 'new', '--no-builtin', ...more], { cwd });

describe('diff: the sandbox setting', () => {
  it('reports read-only → none as an escalation and fails on it', async () => {
    const cwd = sides('mode: m\nsandbox: read-only\ndefault: allow\n', 'mode: m\ndefault: allow\n');
    const text = await diff(cwd);
    expect(text.code).toBe(0);
    const [summary, ...rest] = text.stdout.split('\n');
    expect(summary).toMatch(
      /^old → new: no decision changed \(\d+ mode × tool pairs, and \d+ classes of calls compared exactly\); 1 sandbox escalation$/,
    );
    expect(rest).toEqual([
      '↑ mode `m`, sandbox: read-only → none by no `sandbox` key (was `sandbox` at old/m.yaml:2:1)',
      '',
    ]);
    const failed = await diff(cwd, '--fail-on-escalation');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      'error: 1 escalation towards allow (--fail-on-escalation):\n' +
        '  mode `m`, sandbox: read-only → none by no `sandbox` key (was `sandbox` at old/m.yaml:2:1)\n',
    );
    const json = JSON.parse((await diff(cwd, '--format', 'json')).stdout);
    expect(json.sandbox).toEqual([
      {
        mode: 'm',
        before: { kind: 'read-only', rule: { selector: 'sandbox', file: 'old/m.yaml', line: 2, column: 1 } },
        after: { kind: 'none', rule: null },
        change: 'escalation',
      },
    ]);
    const md = (await diff(cwd, '--format', 'markdown')).stdout;
    expect(md).toContain('**⚠️ sandbox escalation:** mode `m`, sandbox: read-only → none');
  });

  it('reports none → read-only as a narrowing, which does not fail', async () => {
    const cwd = sides(
      'mode: m\nsandbox: none\ndefault: allow\n',
      'mode: m\nsandbox: read-only\ndefault: allow\n',
    );
    const out = await diff(cwd, '--fail-on-escalation');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      '↓ mode `m`, sandbox: none → read-only by `sandbox` at new/m.yaml:2:1 (was `sandbox` at old/m.yaml:2:1)\n',
    );
  });

  it('reports nothing for a mode whose new side shows no tool that runs programs', async () => {
    const cwd = sides(
      'mode: m\nsandbox: read-only\ndefault: allow\n',
      'mode: m\ntools:\n  bash: deny\ndefault: allow\n',
    );
    const out = await diff(cwd, '--format', 'json', '--fail-on-escalation');
    expect(JSON.parse(out.stdout).sandbox).toEqual([]);
  });

  it('sees no change when the setting stays, wherever its key moves', async () => {
    const cwd = sides(
      'mode: m\nsandbox: read-only\ndefault: allow\n',
      'mode: m\ndefault: allow\nsandbox: read-only\n',
    );
    const json = JSON.parse((await diff(cwd, '--format', 'json', '--fail-on-escalation')).stdout);
    expect(json.sandbox).toEqual([]);
    const none = sides('mode: m\nsandbox: none\ndefault: allow\n', 'mode: m\ndefault: allow\n');
    expect(JSON.parse((await diff(none, '--format', 'json')).stdout).sandbox).toEqual([]);
  });
});
