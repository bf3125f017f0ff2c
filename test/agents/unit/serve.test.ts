/** `dsh-mode serve` (src/agents/serve.ts): loopback only, the secret required, the command hook's answers. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSecret, serve, type Serving } from '../../../src/agents/serve.js';

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
let serving: Serving;
let secret: string;
beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-serve-')));
  ws = join(dir, 'project');
  mkdirSync(join(ws, '.dsh', 'agents'), { recursive: true });
  writeFileSync(join(ws, '.dsh', 'agents', 'claude-code.json'), '{"mode":"plan"}');
  env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
  secret = ensureSecret(env).secret;
  serving = await serve({ port: 0, secret, env, cwd: ws });
});
afterEach(async () => {
  await serving.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (command: string) =>
  JSON.stringify({
    session_id: 's',
    cwd: ws,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
  });

describe('serve', () => {
  it('listens on 127.0.0.1 and keeps its secret private', () => {
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook\/claude-code$/);
    expect(statSync(join(dir, 'config', 'dsh-mode', 'serve.secret')).mode & 0o077).toBe(0);
    expect(ensureSecret(env)).toMatchObject({ secret, created: false });
  });

  it('refuses a request without the secret, and decides one with it as the command hook does', async () => {
    const none = await fetch(serving.url, { method: 'POST', body: input('rm x') });
    expect(none.status).toBe(401);
    const wrong = await fetch(serving.url, {
      method: 'POST',
      body: input('rm x'),
      headers: { authorization: `Bearer ${'0'.repeat(64)}` },
    });
    expect(wrong.status).toBe(401);
    const auth = { authorization: `Bearer ${secret}` };
    const denied = await fetch(serving.url, {
      method: 'POST',
      body: input('git status; rm README.md'),
      headers: auth,
    });
    const body = (await denied.json()) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(body.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(body.hookSpecificOutput.permissionDecisionReason).toContain('rm README.md');
    const allowed = await fetch(serving.url, { method: 'POST', body: input('ls'), headers: auth });
    expect(await allowed.json()).toEqual({});
    const garbage = await fetch(serving.url, { method: 'POST', body: '{', headers: auth });
    expect(
      ((await garbage.json()) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
        .permissionDecision,
    ).toBe('deny');
  });
});
