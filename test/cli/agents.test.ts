/**
 * The agent commands on the command line (src/cli/commands/install.ts, mode.ts), in process: install, mode, log,
 * uninstall, and their usage errors.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideHook } from '../../src/agents/hook.js';
import { runCli } from './run-in-process.js';

let dir: string;
let ws: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-cli-agents-')));
  ws = join(dir, 'project');
  mkdirSync(ws);
  env = {
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    CODEX_HOME: join(dir, 'codex'),
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('dsh-mode install, mode, log, uninstall', () => {
  it('installs, switches a session, shows its log, uninstalls', async () => {
    const installed = await runCli(['install', 'codex', '--mode', 'plan'], { cwd: ws, env });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(join(ws, '.codex', 'hooks.json'));
    expect(installed.stderr).toContain('/hooks');
    expect(readFileSync(join(ws, '.codex', 'hooks.json'), 'utf8')).toContain('hook codex');

    const call = {
      session_id: 'abc',
      cwd: ws,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm x' },
    };
    expect(
      (await decideHook('codex', call, { cwd: ws, env: { ...process.env, ...env } })).answer.decision,
    ).toBe('deny');

    const switched = await runCli(['mode', 'default', '--agent', 'codex', '--latest'], { cwd: ws, env });
    expect(switched.stdout).toBe('codex session abc: default mode (was plan)\n');
    expect(
      (await decideHook('codex', call, { cwd: ws, env: { ...process.env, ...env } })).answer.decision,
    ).toBe('allow');

    const log = await runCli(['log', '--agent', 'codex'], { cwd: ws, env });
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(/start +plan/);
    expect(log.stdout).toMatch(/deny +Bash as bash "rm x" in plan mode \(start \(.*\)\) by `bash`/);
    expect(log.stdout).toContain('mode   default (by dsh-mode mode (the user))');
    const json = JSON.parse(
      (await runCli(['log', '--agent', 'codex', '--session', 'abc', '--format', 'json'], { cwd: ws, env }))
        .stdout,
    ) as { mode: string; events: unknown[] };
    expect(json.mode).toBe('default');
    expect(json.events).toHaveLength(6);

    const removed = await runCli(['uninstall', 'codex'], { cwd: ws, env });
    expect(removed.stdout).toContain('removed the PreToolUse hook');
  });

  it('says what is wrong', async () => {
    expect((await runCli(['install'], { cwd: ws, env })).code).toBe(2);
    expect((await runCli(['install', 'cursor'], { cwd: ws, env })).stderr).toContain(
      'unknown agent `cursor`',
    );
    expect((await runCli(['install', 'codex', '--http', '80'], { cwd: ws, env })).stderr).toContain(
      'claude-code only',
    );
    expect((await runCli(['install', 'codex', '--mode', 'nope'], { cwd: ws, env })).code).toBe(1);
    expect((await runCli(['mode', 'default', '--agent', 'codex'], { cwd: ws, env })).stderr).toContain(
      '--latest',
    );
    const none = await runCli(['mode', 'default', '--agent', 'codex', '--latest'], { cwd: ws, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no codex session');
    expect((await runCli(['log', '--agent', 'gemini', '--session', 'nope'], { cwd: ws, env })).code).toBe(1);
    expect((await runCli(['log'], { cwd: ws, env })).stderr).toContain('--agent');
  });
});
