/** `dsh-mode install` / `uninstall` (src/agents/install.ts) on real files: exactly one entry, idempotent, refusals. */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { install, InstallError, registrationFile, uninstall } from '../../../src/agents/install.js';
import { AGENTS } from '../../../src/agents/tables.js';

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-install-')));
  ws = join(dir, 'project');
  mkdirSync(ws);
  env = { HOME: join(dir, 'home'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const opts = (agent: (typeof AGENTS)[number], extra = {}) => ({
  agent,
  scope: 'project' as const,
  workspace: ws,
  env,
  command: `/x/bin/dsh-mode.mjs hook ${agent}`,
  ...extra,
});

describe('install', () => {
  it.each(AGENTS)(
    '%s: writes one entry and the starting mode, then changes nothing, then removes exactly them',
    async (agent) => {
      const first = await install(opts(agent, { mode: 'plan' }));
      expect(first.changes.join('\n')).toMatch(/added the/);
      expect(first.changes.join('\n')).toContain('new sessions start in plan mode');
      const file = registrationFile(agent, 'project', ws, env);
      const written = readFileSync(file, 'utf8');
      const again = await install(opts(agent, { mode: 'plan' }));
      expect(again.changes.every((c) => c.includes('unchanged'))).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(written);
      const mode = await install(opts(agent, { mode: 'default' }));
      expect(mode.changes[1]).toContain('(was plan)');
      const gone = uninstall(opts(agent));
      expect(gone.changes.join('\n')).toContain('removed');
      if (agent === 'opencode') expect(existsSync(file)).toBe(false);
      else
        expect(JSON.parse(readFileSync(file, 'utf8')).hooks).toEqual({
          [agent === 'gemini' ? 'BeforeTool' : 'PreToolUse']: [],
        });
      expect(uninstall(opts(agent)).changes[0]).toContain('nothing to remove');
    },
  );

  it('keeps the hooks, settings and comments it did not write', async () => {
    const file = join(ws, '.claude', 'settings.json');
    mkdirSync(join(ws, '.claude'));
    const other = { matcher: 'Bash', hooks: [{ type: 'command', command: 'my-guard' }] };
    writeFileSync(
      file,
      `{\n  // mine\n  "model": "x",\n  "hooks": { "PreToolUse": [${JSON.stringify(other)}] }\n}\n`,
    );
    await install(opts('claude-code'));
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('// mine');
    expect(text).toContain('"onFailure": "block"');
    uninstall(opts('claude-code'));
    const after = readFileSync(file, 'utf8');
    expect(after).toContain('// mine');
    expect(after).toContain('my-guard');
    expect(after).not.toContain('dsh-mode');
  });

  it('refuses what is not its own, a policy that does not load and a mode that does not exist, writing nothing', async () => {
    const plugin = registrationFile('opencode', 'project', ws, env);
    mkdirSync(join(plugin, '..'), { recursive: true });
    writeFileSync(plugin, 'export const Mine = async () => ({});\n');
    await expect(install(opts('opencode'))).rejects.toThrow(/did not write it/);
    expect(() => uninstall(opts('opencode'))).toThrow(InstallError);
    const gemini = registrationFile('gemini', 'project', ws, env);
    mkdirSync(join(gemini, '..'), { recursive: true });
    writeFileSync(
      gemini,
      JSON.stringify({
        hooks: {
          BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', name: 'dsh-mode', command: 'evil' }] }],
        },
      }),
    );
    await expect(install(opts('gemini'))).rejects.toThrow(/dsh-mode did not write/);
    await expect(install(opts('codex', { mode: 'plam' }))).rejects.toThrow(/do not define the mode `plam`/);
    writeFileSync(join(ws, 'cordis.yml'), '- name: host\n- name: demo\n- name: mode\n  config: {}\n');
    await expect(install(opts('codex'))).rejects.toThrow(/not trusted/);
    expect(existsSync(registrationFile('codex', 'project', ws, env))).toBe(false);
  });
});

describe("Claude Code's version and onFailure", () => {
  it.each([
    ['2.1.328 (Claude Code)', 'honours'],
    ['2.1.295 (Claude Code)', 'honours'],
    ['2.1.200 (Claude Code)', 'predates'],
    ['1.9.999', 'predates'],
  ])('claude --version %s: %s', async (printed, word) => {
    const { chmodSync } = await import('node:fs');
    const { claudeVersionNote } = await import('../../../src/agents/install.js');
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\necho '${printed}'\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    expect(claudeVersionNote({ PATH: bin })).toContain(word);
  });

  it('says so when there is no claude to ask', async () => {
    const { claudeVersionNote } = await import('../../../src/agents/install.js');
    expect(claudeVersionNote({ PATH: join(dir, 'none') })).toContain('no `claude` on PATH');
  });
});
