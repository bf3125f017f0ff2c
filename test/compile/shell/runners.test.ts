/**
 * Package runners against the real npm: in a project whose `node_modules/.bin` holds a logging `probe`, each form
 * is run by npx or `npm exec` (offline, nothing fetched), and the commands the analyser says it runs are exactly
 * the ones the probe logged.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractCommands } from '../../../src/compile/shell/index.js';

const hasNpx = spawnSync('npx', ['--version'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!hasNpx)('package runners, against npm itself', () => {
  const project = mkdtempSync(join(tmpdir(), 'dsh-runners-'));
  const log = join(project, 'log');
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"name":"probe-project","version":"1.0.0"}\n');
  const probe = join(project, 'node_modules/.bin/probe');
  writeFileSync(probe, '#!/bin/sh\necho "probe $*" >> "$PROBE_LOG"\n');
  chmodSync(probe, 0o755);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it.each([
    'npx probe a',
    'npx -y probe a -y',
    'npx --yes --no-install probe --x',
    'npx -q -- probe a',
    "npx -c 'probe a; probe b'",
    'npm exec -- probe a --x',
    'npm exec probe a b',
    'npm x -y -- probe a',
    "npm exec -c 'probe a | probe b'",
  ])(
    '%s',
    (script) => {
      rmSync(log, { force: true });
      const run = spawnSync('/bin/sh', ['-c', script], {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          PROBE_LOG: log,
          npm_config_offline: 'true',
          npm_config_update_notifier: 'false',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
        },
      });
      expect(run.status, run.stderr).toBe(0);
      const ran = readFileSync(log, 'utf8').trim().split('\n').sort();
      const analysis = extractCommands(script);
      expect(analysis.unanalysable).toEqual([]);
      const seen = analysis.commands
        .filter((c) => c.name === 'probe')
        .map((c) => c.words.map((w) => w.value).join(' '))
        .sort();
      expect(seen).toEqual(ran);
      // npm starts a Node process per run: the timeout holds on a loaded 2-core machine.
    },
    120_000,
  );
});
