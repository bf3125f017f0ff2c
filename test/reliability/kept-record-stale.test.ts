/**
 * Red team of the agents' kept record (src/agents/compiled.ts): a record whose recorded texts are the NEW sources
 * but whose documents were parsed from the OLD ones would be used until a source changes again, with the old
 * decisions. Found against the first version of the change-time check (ed7e2ef), which stat'ed the files before
 * re-reading them, followed links without looking at them, and compared lossily decoded texts; each is closed
 * now, and each test here failed on that version.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as realFs from 'node:fs';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Something to run right after the long load returned (as if it happened at its very end), and something to run
// right after writeRecord's ctime check stat'ed a given path.
const hooks: { afterLoad?: () => void; afterStat?: (path: string) => void } = {};
vi.mock('../../src/agents/policies.js', async (original) => {
  const real = await original<typeof import('../../src/agents/policies.js')>();
  return {
    ...real,
    readDeployment: async (ws: string) => {
      const read = await real.readDeployment(ws);
      hooks.afterLoad?.();
      return read;
    },
  };
});
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  const statSync = ((path: string, ...rest: unknown[]) => {
    const s = (real.statSync as (...a: unknown[]) => unknown)(path, ...rest);
    hooks.afterStat?.(String(path));
    return s;
  }) as typeof real.statSync;
  return { ...real, default: { ...real, statSync }, statSync };
});

const { agentPolicies } = await import('../../src/agents/compiled.js');
const { authorize } = await import('../../src/engine/authorize.js');
const ROOT = join(import.meta.dirname, '..', '..');

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Old: adds nothing to plan (web_fetch allowed). New: denies web_fetch.
const OLD = 'mode: plan\ntools:\n  grep: allow\n';
const NEW = 'mode: plan\ntools:\n  web_fetch: deny\n';

beforeEach(async () => {
  hooks.afterLoad = undefined;
  hooks.afterStat = undefined;
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-kept-')));
  ws = join(dir, 'project');
  mkdirSync(join(ws, '.dsh', 'agents'), { recursive: true });
  writeFileSync(join(ws, '.dsh', 'agents', 'claude-code.json'), JSON.stringify({ mode: 'plan' }));
  env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
  writeFileSync(
    join(ws, 'cordis.yml'),
    '- name: host\n- name: demo\n- name: mode\n  config:\n    policies: [policies]\n',
  );
});
const trust = () =>
  execFileSync(process.execPath, [join(ROOT, 'bin/dsh-mode.mjs'), 'trust', 'cordis.yml'], { cwd: ws, env });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const webFetch = async () =>
  authorize((await agentPolicies(ws, env, '1.0.0')).policies, 'plan', { name: 'web_fetch' }).decision;

describe('the kept record after a change during the long load', () => {
  it('a policy folder reached through a symbolic link, switched during the load (ln -sfn release-2 policies)', async () => {
    // Both releases exist well before the load: their ctimes are old, and the link itself is never stat'ed.
    mkdirSync(join(ws, 'release-1'));
    mkdirSync(join(ws, 'release-2'));
    writeFileSync(join(ws, 'release-1', 'a.yaml'), OLD);
    writeFileSync(join(ws, 'release-2', 'a.yaml'), NEW);
    symlinkSync('release-1', join(ws, 'policies'));
    trust();
    await sleep(100);
    hooks.afterLoad = () => {
      rmSync(join(ws, 'policies'));
      symlinkSync('release-2', join(ws, 'policies'));
    };
    expect(await webFetch()).toBe('allow'); // this call read release-1: fine
    hooks.afterLoad = undefined;
    expect(realFs.readFileSync(join(ws, 'policies', 'a.yaml'), 'utf8')).toBe(NEW);
    // Every later call: the sources read as release-2, which denies web_fetch.
    expect(await webFetch()).toBe('deny');
    await sleep(100);
    expect(await webFetch()).toBe('deny');
    expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(true);
  });

  it('a policy file edited while its change time is checked', async () => {
    mkdirSync(join(ws, 'policies'));
    writeFileSync(join(ws, 'policies', 'a.yaml'), OLD);
    trust();
    await sleep(100);
    let loaded = false;
    hooks.afterLoad = () => (loaded = true);
    hooks.afterStat = (path) => {
      if (loaded && path === join(ws, 'policies', 'a.yaml')) {
        loaded = false;
        writeFileSync(path, NEW); // lands after its stat said "old"
      }
    };
    expect(await webFetch()).toBe('allow');
    hooks.afterLoad = hooks.afterStat = undefined;
    expect(realFs.readFileSync(join(ws, 'policies', 'a.yaml'), 'utf8')).toBe(NEW);
    expect(await webFetch()).toBe('deny');
  });

  it('an edit to bytes that are not UTF-8 but decode (lossily) to the recorded text', async () => {
    // The recorded text holds U+FFFD (valid UTF-8: EF BF BD); the edit puts a lone 0xFF there. Buffer#toString
    // makes both U+FFFD, so the record still matches, while the long way refuses the file (strict UTF-8).
    mkdirSync(join(ws, 'policies'));
    const file = join(ws, 'policies', 'a.yaml');
    writeFileSync(file, `# \uFFFD\n${OLD}`);
    trust();
    await sleep(100);
    expect(await webFetch()).toBe('allow');
    expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(true);
    writeFileSync(file, Buffer.concat([Buffer.from('# '), Buffer.from([0xff]), Buffer.from(`\n${OLD}`)]));
    // The long way: "policy is not valid UTF-8 text", so nothing outside the default mode is allowed.
    await expect(agentPolicies(ws, env, '1.0.0')).rejects.toThrow(/not valid UTF-8/);
  });
});

describe('cordis.yml during the long load', () => {
  it('is refused when the text the load read may not be the one that was trusted', async () => {
    mkdirSync(join(ws, 'policies'));
    writeFileSync(join(ws, 'policies', 'a.yaml'), NEW);
    trust();
    await sleep(100);
    // Changed and changed back while the load ran: the load may have read the other text.
    const trusted = realFs.readFileSync(join(ws, 'cordis.yml'), 'utf8');
    hooks.afterLoad = () => {
      writeFileSync(join(ws, 'cordis.yml'), `${trusted}- name: other\n`);
      writeFileSync(join(ws, 'cordis.yml'), trusted);
    };
    await expect(agentPolicies(ws, env, '1.0.0')).rejects.toThrow(/changed while its policies were read/);
    hooks.afterLoad = undefined;
    await sleep(100);
    expect(await webFetch()).toBe('deny');
  });
});

describe('the same race with real hook processes', () => {
  it('a symlink switch during a cold hook call leaves a record that allows what the new policy denies', async () => {
    mkdirSync(join(ws, 'release-1'));
    mkdirSync(join(ws, 'release-2'));
    writeFileSync(join(ws, 'release-1', 'a.yaml'), OLD);
    writeFileSync(join(ws, 'release-2', 'a.yaml'), NEW);
    const input = JSON.stringify({
      session_id: 's1',
      cwd: ws,
      hook_event_name: 'PreToolUse',
      permission_mode: 'default',
      tool_name: 'WebFetch',
      tool_input: { url: 'https://example.com', prompt: 'p' },
    });
    const hook = join(ROOT, 'bin', 'dsh-mode-hook.cjs');
    const run = () =>
      spawnSync(process.execPath, [hook, 'hook', 'claude-code'], { cwd: ws, env, input, encoding: 'utf8' });
    run(); // warm V8's code cache
    // Time a cold call (no record) to aim the switch at its end.
    const cold = () =>
      realFs.rmSync(join(dir, 'cache', 'dsh-mode', 'deployments'), { recursive: true, force: true });
    symlinkSync('release-1', join(ws, 'policies'));
    trust();
    await sleep(100);
    cold();
    const t = Date.now();
    run();
    const took = Date.now() - t;
    let stale = 0;
    for (let i = 0; i < 8; i++) {
      rmSync(join(ws, 'policies'));
      symlinkSync('release-1', join(ws, 'policies'));
      cold();
      await sleep(60);
      const child = spawn(process.execPath, [hook, 'hook', 'claude-code'], { cwd: ws, env });
      child.stdin.end(input);
      const done = new Promise((r) => child.on('close', r));
      await sleep(Math.max(0, took * (0.6 + (0.4 * i) / 8)));
      rmSync(join(ws, 'policies'));
      symlinkSync('release-2', join(ws, 'policies'));
      await done;
      const after = run().stdout;
      if (!after.includes('"deny"')) stale++;
    }
    expect(stale, `${stale}/8 switches left web_fetch allowed under release-2, which denies it`).toBe(0);
  });
});
