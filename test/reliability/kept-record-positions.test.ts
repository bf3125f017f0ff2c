/** Red team: the kept record's position tree (revive's at()) with keys that are Object.prototype names or indices. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { agentPolicies } from '../../src/agents/compiled.js';
import { authorize } from '../../src/engine/authorize.js';

const ROOT = join(import.meta.dirname, '..', '..');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('decides and reports positions as the long way does for __proto__, constructor, toString, 0, length keys', async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-pos-')));
  const ws = join(dir, 'p');
  mkdirSync(join(ws, 'policies'), { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'h'),
    XDG_CACHE_HOME: join(dir, 'c'),
    XDG_CONFIG_HOME: join(dir, 'g'),
  };
  writeFileSync(
    join(ws, 'cordis.yml'),
    '- name: host\n- name: demo\n- name: mode\n  config:\n    policies: [policies]\n',
  );
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', 'length', 'valueOf'];
  writeFileSync(
    join(ws, 'policies', 'a.yaml'),
    `mode: plan\ntools:\n${names.map((n) => `  "${n}": deny\n`).join('')}  "*":\n    decision: deny\n    reason: x\n`,
  );
  execFileSync(process.execPath, [join(ROOT, 'bin/dsh-mode.mjs'), 'trust', 'cordis.yml'], { cwd: ws, env });
  await new Promise((r) => setTimeout(r, 60));
  const fresh = await agentPolicies(ws, env, '1');
  const kept = await agentPolicies(ws, env, '1');
  expect(fresh.kept).toBe(false);
  expect(kept.kept).toBe(true);
  for (const name of [...names, 'web_fetch', 'read', 'nope', 'bash'])
    expect(authorize(kept.policies, 'plan', { name, arguments: { command: 'ls' } }), name).toEqual(
      authorize(fresh.policies, 'plan', { name, arguments: { command: 'ls' } }),
    );
});
