/**
 * `dsh-mode check` shows the sandbox a program tool's call runs in, as the gate hands it to the tool: plan's
 * `read-only` with its key's location, `none` where a mode sets it or sets nothing, and nothing for a denied call
 * or a tool that runs no programs. In process through `main`.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-check-sandbox-')));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(join(dir, 'policies', 'bare.yaml'), 'mode: bare\nsandbox: none\ndefault: allow\n');
  writeFileSync(join(dir, 'policies', 'unset.yaml'), 'mode: unset\ndefault: allow\n');
  return dir;
}

const check = async (cwd: string, ...argv: string[]) => {
  const out = await runCli(['check', ...argv, '--format', 'json'], { cwd });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout);
};

describe('check: the sandbox of a call', () => {
  it('says plan runs an allowed bash call read-only, and where that is set', async () => {
    const cwd = folder();
    const text = await runCli(['check', 'plan', 'bash', '--args', '{"command":"git log -3"}'], { cwd });
    expect(text.stdout).toMatch(/\n {2}sandbox {2}read-only, set at dsh-mode:policies\/plan\.yaml:\d+:1\n/);
    const json = await check(cwd, 'plan', 'bash', '--args', '{"command":"git log -3"}');
    expect(json.sandbox).toEqual({
      kind: 'read-only',
      rule: { selector: 'sandbox', file: 'dsh-mode:policies/plan.yaml', line: expect.any(Number), column: 1 },
    });
  });

  it('says none for a mode that sets none or nothing', async () => {
    const cwd = folder();
    const bare = await check(cwd, 'bare', 'bash', '--args', '{"command":"rm -rf x"}');
    expect(bare.sandbox).toEqual({
      kind: 'none',
      rule: { selector: 'sandbox', file: 'policies/bare.yaml', line: 2, column: 1 },
    });
    expect((await check(cwd, 'unset', 'bash')).sandbox).toEqual({ kind: 'none', rule: null });
    const text = await runCli(['check', 'unset', 'bash'], { cwd });
    expect(text.stdout).toContain('  sandbox  none (no document of the mode sets one)\n');
  });

  it('says nothing for a denied call or a tool that runs no programs', async () => {
    const cwd = folder();
    expect(await check(cwd, 'plan', 'bash', '--args', '{"command":"rm -rf x"}')).not.toHaveProperty(
      'sandbox',
    );
    expect(await check(cwd, 'plan', 'read')).not.toHaveProperty('sandbox');
    expect(await check(cwd, 'bare', 'mcp__sh__bash')).not.toHaveProperty('sandbox');
  });
});
