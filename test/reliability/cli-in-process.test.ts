/**
 * `main(argv, io)` runs a command for the environment it is given, not the process's: `trust` keeps its records
 * in the config folder named by `io.env.vars` (so an embedding caller, or a test, never writes the user's), and
 * `--list` and `--revoke` read the same place.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeTree } from '../cli/run.js';
import { measured } from './config.js';

const saved = process.env.DSH_MODE_CONFIG_DIR;
afterEach(() => {
  if (saved === undefined) delete process.env.DSH_MODE_CONFIG_DIR;
  else process.env.DSH_MODE_CONFIG_DIR = saved;
});

async function run(argv: string[], cwd: string, vars: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { cwd, color: false, vars },
  });
  return { code, stdout, stderr };
}

describe('main(argv, io): the environment variables it is given', () => {
  it('trust records, lists and revokes in the config folder of io.env.vars, not of process.env', async () => {
    await measured('hostile', 'cli: trust in the environment main() is given', null, async () => {
      const dir = makeTree({ 'cordis.yml': '- name: host\n- name: mode\n- name: demo\n' });
      // The process's own config folder: a decoy that must stay untouched.
      const decoy = join(mkdtempSync(join(tmpdir(), 'dsh-decoy-')), 'config');
      process.env.DSH_MODE_CONFIG_DIR = decoy;
      const config = join(mkdtempSync(join(tmpdir(), 'dsh-given-')), 'config');
      const vars = { DSH_MODE_CONFIG_DIR: config };

      const trusted = await run(['trust'], dir, vars);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stdout).toContain(`recorded in ${join(config, 'trusted.json')}`);
      const records = JSON.parse(readFileSync(join(config, 'trusted.json'), 'utf8')) as {
        trusted: { path: string }[];
      };
      expect(records.trusted.map((r) => r.path)).toEqual([join(dir, 'cordis.yml')]);

      const list = await run(['trust', '--list'], dir, vars);
      expect(list.stdout).toContain(`${join(dir, 'cordis.yml')}  trusted`);
      const revoked = await run(['trust', '--revoke'], dir, vars);
      expect(revoked.stdout).toBe(`revoked ${join(dir, 'cordis.yml')}\n`);
      const empty = await run(['trust', '--list'], dir, vars);
      expect(empty.stdout).toBe(`no trusted files (records: ${join(config, 'trusted.json')})\n`);

      expect(existsSync(decoy)).toBe(false);
      return { runs: 4, violations: 0, notes: 'trust, --list, --revoke, --list' };
    });
  });
});
