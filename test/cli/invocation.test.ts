/**
 * Follow-up hints print the command as it was run: `npx dsh-mode …` when npx (or `npm exec`) runs it, as npm's
 * own variables say, else `dsh-mode …`. The real npx runs the real binary from a project's node_modules/.bin; the
 * in-process runs set npm's variables as npx does.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocation } from '../../src/apps/invocation.js';
import { runCli } from './run-in-process.js';
import { makeTree, ROOT } from './run.js';

const NPX = { npm_command: 'exec', npm_lifecycle_event: 'npx' };

describe('hints name the command as it was run', () => {
  it('reads npm’s variables: exec through npx is `npx dsh-mode`; a package script or a shell is `dsh-mode`', () => {
    expect(invocation(NPX)).toBe('npx dsh-mode');
    expect(invocation({ npm_command: 'run-script', npm_lifecycle_event: 'lint' })).toBe('dsh-mode');
    expect(invocation({})).toBe('dsh-mode');
  });

  it('usage errors, the unknown-command hint and lint’s hint', async () => {
    const dir = makeTree({ 'README.md': 'x\n' });
    const usage = await runCli(['lint', '--frob'], { cwd: dir, env: NPX });
    expect(usage.stderr).toContain('\nusage: npx dsh-mode lint [PATH...]');
    expect(usage.stderr).toContain('run `npx dsh-mode lint --help` for details\n');
    const unknown = await runCli(['zzzzzz'], { cwd: dir, env: NPX });
    expect(unknown.stderr).toContain('help: run `npx dsh-mode --help` for the commands');
    const nothing = await runCli(['lint', '--no-builtin'], { cwd: dir, env: NPX });
    expect(nothing.stderr).toContain('help: name the policy files or folders: npx dsh-mode lint PATH...');
    const plain = await runCli(['lint', '--frob'], { cwd: dir });
    expect(plain.stderr).toContain('\nusage: dsh-mode lint [PATH...]');
    expect(plain.stderr).toContain('run `dsh-mode lint --help` for details\n');
  });

  it('the real npx: a project with dsh-mode in node_modules/.bin', () => {
    const dir = makeTree({ 'package.json': '{"name":"p","version":"1.0.0","private":true}' });
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    symlinkSync(join(ROOT, 'bin/dsh-mode.mjs'), join(dir, 'node_modules/.bin/dsh-mode'));
    writeFileSync(join(dir, 'cordis.yml'), '- name: host\n- name: mode\n- name: demo\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DSH_MODE_CONFIG_DIR: join(dir, 'config'),
      NO_COLOR: '1',
    };
    // The test itself may run under npx: what npx sets must come from this npx.
    delete env.npm_command;
    delete env.npm_lifecycle_event;
    const npx = (args: string[]) =>
      spawnSync('npx', ['--no-install', 'dsh-mode', ...args], { cwd: dir, env, encoding: 'utf8', input: '' });
    const usage = npx(['lint', '--frob']);
    expect(usage.status, usage.stderr).toBe(2);
    expect(usage.stderr).toContain('run `npx dsh-mode lint --help` for details');
    // chat finds an untrusted cordis.yml: the command to trust it is the one to paste.
    const untrusted = npx(['chat', '--prompt', 'hi']);
    expect(untrusted.status, untrusted.stderr).toBe(1);
    expect(untrusted.stderr).toContain('review it, then run: npx dsh-mode trust cordis.yml');
  });
});
