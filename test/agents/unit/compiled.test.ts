/**
 * The compiled deployment the hook loads (src/agents/compiled.ts): the same decisions as the policies read the
 * long way, kept while its sources are unchanged, read again when any changes, never taken from a forged record.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { agentPolicies, recordPath } from '../../../src/agents/compiled.js';
import { authorize } from '../../../src/engine/authorize.js';
import { ROOT } from '../../cli/run.js';

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-compiled-')));
  ws = join(dir, 'project');
  mkdirSync(join(ws, 'policies'), { recursive: true });
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
  writeFileSync(join(ws, 'policies', 'a.yaml'), 'mode: plan\ntools:\n  web_fetch: deny\n');
  execFileSync(process.execPath, [join(ROOT, 'bin/dsh-mode.mjs'), 'trust', 'cordis.yml'], { cwd: ws, env });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CALLS = [
  { name: 'bash', arguments: { command: 'git log -5; rm -rf x' } },
  { name: 'web_fetch' },
  { name: 'write', arguments: { path: 'a' } },
  { name: 'read', arguments: { path: '.env' } },
  { name: 'exit_plan_mode' },
];

describe('the compiled deployment', () => {
  it('decides as the long way does, with the same rules and positions, and is kept until a source changes', async () => {
    const fresh = await agentPolicies(ws, env, '1.0.0');
    expect(fresh.kept).toBe(false);
    const kept = await agentPolicies(ws, env, '1.0.0');
    expect(kept.kept).toBe(true);
    for (const call of CALLS)
      expect(authorize(kept.policies, 'plan', call)).toEqual(authorize(fresh.policies, 'plan', call));
    expect(authorize(kept.policies, 'plan', { name: 'web_fetch' }).rule.file).toBe(
      join(ws, 'policies', 'a.yaml'),
    );
    // Another version, an edited policy, a new file in a policy folder: each is read again.
    expect((await agentPolicies(ws, env, '1.0.1')).kept).toBe(false);
    writeFileSync(join(ws, 'policies', 'a.yaml'), 'mode: plan\ntools:\n  web_fetch: allow\n');
    expect((await agentPolicies(ws, env, '1.0.1')).kept).toBe(false);
    writeFileSync(join(ws, 'policies', 'b.yaml'), 'mode: plan\ntools:\n  grep: deny\n');
    const added = await agentPolicies(ws, env, '1.0.1');
    expect(added.kept).toBe(false);
    expect(authorize(added.policies, 'plan', { name: 'grep' }).decision).toBe('deny');
  });

  it('never uses documents whose sources no longer read as the record says', async () => {
    await agentPolicies(ws, env, '1.0.0');
    const file = recordPath(ws, env);
    const record = JSON.parse(readFileSync(file, 'utf8')) as {
      documents: Array<{ document: { tools?: Record<string, unknown> } }>;
    };
    // A forged record that widens plan, with the sources' texts left as they were: only the texts are checked,
    // so it is the cache folder's owner who could do this; a changed source still replaces it.
    writeFileSync(join(ws, 'policies', 'a.yaml'), 'mode: plan\ntools:\n  web_fetch: deny\n  grep: deny\n');
    record.documents[0]!.document.tools = { '*': 'allow' };
    writeFileSync(file, JSON.stringify(record));
    const again = await agentPolicies(ws, env, '1.0.0');
    expect(again.kept).toBe(false);
    expect(authorize(again.policies, 'plan', { name: 'write', arguments: { path: 'a' } }).decision).toBe(
      'deny',
    );
    writeFileSync(file, '{not json');
    expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(false);
  });

  it('never records a source that changed while it was being read', async () => {
    // The load read one text and the record would keep another beside its documents. A change is "during the
    // load" when its time is not before the load began: the clock is set back to the policy's change.
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(join(ws, 'policies', 'a.yaml'), 'mode: plan\ntools:\n  web_fetch: deny\n');
    const changed = statSync(join(ws, 'policies', 'a.yaml')).ctimeMs;
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Math.floor(changed));
    try {
      expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(false);
    } finally {
      clock.mockRestore();
    }
    expect(existsSync(recordPath(ws, env))).toBe(false);
    // Read again the long way, with the clock as it is: now it is kept.
    expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(false);
    expect((await agentPolicies(ws, env, '1.0.0')).kept).toBe(true);
  });
});
