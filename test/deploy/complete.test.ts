/**
 * What lint passes, start accepts: every deployment the start of `chat`/`acp` refuses (a missing host or model, a
 * second model, a plugin twice, an unknown plugin, a bad config, a mode policy that does not load, a policy file
 * that does not exist) is an error of `dsh-mode lint cordis.yml` at the same line and column, and `trust` refuses
 * it without recording it. Real parts: temp folders, the CLI in process, `startDeployment` on a real cordis
 * Context (the files that pass start for real and are disposed).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLUGIN_NAMES } from '../../src/apps/plugin-names.js';
import { DeploymentError, planDeployment, startDeployment } from '../../src/apps/deployment.js';
import { MODEL_NAMES } from '../../src/deploy/index.js';
import { runCli } from '../cli/run-in-process.js';

function folder(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-complete-'));
  writeFileSync(join(dir, 'cordis.yml'), text);
  writeFileSync(join(dir, 'script.json'), '[]');
  return dir;
}

/** The start's verdict: `line:column message` of each error, or [] when it started (then disposed). */
async function startErrors(dir: string): Promise<string[]> {
  try {
    const plan = planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') });
    const runtime = await startDeployment(plan, { workspace: dir, log: () => {} });
    await runtime.dispose();
    return [];
  } catch (error) {
    if (!(error instanceof DeploymentError)) throw error;
    return error.diagnostics
      .map((d) => `${d.range?.start.line}:${d.range?.start.column} ${d.message}`)
      .sort();
  }
}

/** Lint's errors on the same file, as `line:column message`. */
async function lintErrors(dir: string): Promise<{ code: number; errors: string[] }> {
  const run = await runCli(['lint', 'cordis.yml', '--format', 'json'], { cwd: dir });
  const report = JSON.parse(run.stdout) as {
    diagnostics: { severity: string; message: string; line?: number; column?: number }[];
  };
  const errors = report.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.line}:${d.column} ${d.message}`)
    .sort();
  return { code: run.code, errors };
}

const NO_MODEL =
  'the deployment has no model: add `- name: demo` (the scripted walk-through), `- name: scripted` or `- name: openai`';

/** Deployments start refuses, each with the errors it reports (sorted). */
const REFUSED: [string, string, string[]][] = [
  ['no model', '- name: host\n- name: mode\n', [`1:1 ${NO_MODEL}`]],
  ['no host', '- name: mode\n- name: demo\n', ['1:1 the deployment has no `host` entry']],
  [
    'two models',
    '- name: host\n- name: demo\n- name: scripted\n  config: { script: script.json }\n',
    ['3:9 a deployment has one model; `scripted` is a second one'],
  ],
  [
    'two mode entries',
    '- name: host\n- name: mode\n- id: review\n  name: mode\n- name: demo\n',
    ['4:9 a deployment has one `mode` entry; `review` is a second one'],
  ],
  [
    'two hosts',
    '- name: host\n- id: other\n  name: host\n- name: demo\n',
    ['3:9 a deployment has one `host` entry; `other` is a second one'],
  ],
  [
    'two mcp entries',
    '- name: host\n- name: mcp\n  config: { servers: {} }\n- id: more\n  name: mcp\n  config: { servers: {} }\n- name: demo\n',
    ['5:9 a deployment has one `mcp` entry; `more` is a second one'],
  ],
  ['an empty deployment', '[]\n', ['1:1 the deployment has no `host` entry', `1:1 ${NO_MODEL}`]],
  [
    'an unknown plugin',
    '- name: host\n- name: hots\n- name: demo\n',
    ['2:9 unknown plugin `hots`: did you mean `host`?'],
  ],
  [
    'a bad config',
    '- name: host\n  config: { builtinTools: "yes" }\n- name: demo\n',
    ['2:27 `config.builtinTools` of entry 1 (`host`) must be a boolean: got string `yes`'],
  ],
  [
    'a policy file that does not exist',
    '- name: host\n- name: mode\n  config: { policies: [missing.yaml] }\n- name: demo\n',
    ['3:24 policy file `missing.yaml` does not exist'],
  ],
];

describe('lint cordis.yml reports every error that start refuses, at the same place', () => {
  it.each(REFUSED)('%s', async (_, text, expected) => {
    const dir = folder(text);
    expect(await startErrors(dir)).toEqual(expected);
    const lint = await lintErrors(dir);
    expect(lint.errors).toEqual(expected);
    // 2 when the deployment names a file that cannot be read (lint's exit code for unreadable inputs), else 1.
    expect(lint.code).toBe(text.includes('missing.yaml') ? 2 : 1);
  });

  it('a complete deployment lints clean of errors and starts', async () => {
    const dir = folder('- name: host\n- name: mode\n- name: mcp\n  config: { servers: {} }\n- name: demo\n');
    expect(await startErrors(dir)).toEqual([]);
    expect((await lintErrors(dir)).errors).toEqual([]);
  });

  it('--model-script replaces the file’s model: a file with none, or two, then starts', async () => {
    for (const text of ['- name: host\n', '- name: host\n- name: demo\n- name: openai\n']) {
      const dir = folder(text);
      const plan = planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') });
      const runtime = await startDeployment(plan, {
        workspace: dir,
        modelScript: join(dir, 'script.json'),
        log: () => {},
      });
      await runtime.dispose();
    }
  });

  it('the model names of src/deploy are the models of the apps’ registry', () => {
    const models = Object.entries(PLUGIN_NAMES)
      .filter(([, spec]) => spec.kind === 'model')
      .map(([name]) => name);
    expect([...MODEL_NAMES].sort()).toEqual(models.sort());
  });
});

describe('trust refuses what start refuses, and records nothing', () => {
  it.each(REFUSED)('%s', async (_, text, expected) => {
    const dir = folder(text);
    const env = { DSH_MODE_CONFIG_DIR: join(dir, 'config') };
    const run = await runCli(['trust'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('error: cordis.yml is not a valid deployment; nothing was recorded');
    const errors = lines
      .slice(0, -1)
      .map((l) => l.replace(/^.*cordis\.yml:(\d+):(\d+): /, '$1:$2 '))
      .sort();
    expect(errors).toEqual(expected);
    expect((await runCli(['trust', '--list'], { cwd: dir, env })).stdout).toMatch(/^no trusted files/);
  });
});
