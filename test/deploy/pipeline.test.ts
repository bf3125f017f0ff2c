/**
 * One configuration pipeline (src/deploy): a deployment file is read by one layer, and every reader agrees with
 * it. The editor schema (schema/cordis.schema.json, compiled fresh by ajv here) and the loader accept exactly the
 * same files; `dsh-mode lint cordis.yml` lints the deployment (its entries, inline modes and policy files);
 * `check` and `matrix` answer for the deployment with `--config`; keys that collide once read are refused in
 * inline modes; `apiKey` reaches the model endpoint; the mode plugin starts from modes resolved once, without
 * reading its files again.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { Context } from 'cordis';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { DeploymentError, planDeployment } from '../../src/apps/deployment.js';
import { measured } from '../reliability/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-deploy-pipeline-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function run(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DEEPSEEK_API_KEY;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env, input: '' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The loader's verdict on a file: accepted, or refused before anything starts. */
function loaderAccepts(text: string): boolean {
  const dir = folder({ 'cordis.yml': text });
  try {
    planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') });
    return true;
  } catch (error) {
    if (error instanceof DeploymentError) return false;
    throw error;
  }
}

const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'schema', name), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schema('policy.schema.json'));
ajv.addSchema(schema('mode-config.schema.json'));
const editorValidate = ajv.compile(schema('cordis.schema.json'));

/** Deployment files, each with what both readers must say. */
const CORPUS: [string, boolean][] = [
  ['- name: host\n- name: mode\n- name: demo\n', true],
  ['- name: host\n  config: { workspace: ., sessionsDir: s, builtinTools: false }\n', true],
  ['- name: openai\n  config: { apiKey: sk-test, baseUrl: "http://x", model: m }\n', true],
  ['- name: openai\n  config: { timeoutMs: 1000, maxRetries: 0, backoffMs: 0, extraBody: { t: 1 } }\n', true],
  ['- name: scripted\n  config: { script: s.yaml }\n', true],
  ['- name: mode\n  config:\n    policies: [policies]\n    modes: { review: { default: deny } }\n', true],
  ['- id: a\n  name: host\n- id: b\n  name: host\n', true],
  ['- name: host\n  config: { wrkspace: . }\n', false],
  ['- name: host\n  config: { builtinTools: "yes" }\n', false],
  ['- name: openai\n  config: { baseURL: "http://x" }\n', false],
  ['- name: openai\n  config: { timeoutMs: 0 }\n', false],
  ['- name: scripted\n', false],
  ['- name: scripted\n  config: { script: s.yaml, speed: 2 }\n', false],
  ['- name: demo\n  config: { speed: 2 }\n', false],
  ['- name: dsh-mode\n', false],
  ['- name: hots\n', false],
  ['- name: host\n  conf: {}\n', false],
  ['- name: host\n  config: [a]\n', false],
  ['- name: mode\n  config: { polices: [x] }\n', false],
  ['- name: mode\n  config: { source: { file: x } }\n', false],
  ['- name: mode\n  config: { modes: { Review: {} } }\n', false],
  ['- name: mode\n  config: { modes: { default: {} } }\n', false],
  ['- name: mode\n  config: { modes: { review: { tools: { read: maybe } } } }\n', false],
  ['name: host\n', false],
];

describe('one configuration pipeline: the editor schema and the loader', () => {
  it('accept and refuse exactly the same deployment files', async () => {
    await measured('hostile', 'deploy: schema and loader agree on every deployment file', null, async () => {
      const disagreements: string[] = [];
      for (const [text, expected] of CORPUS) {
        const editor = editorValidate(parse(text)) === true;
        const loader = loaderAccepts(text);
        if (editor !== expected || loader !== expected) {
          disagreements.push(`${JSON.stringify(text)}: schema ${editor}, loader ${loader}, want ${expected}`);
        }
      }
      expect(disagreements).toEqual([]);
      return { runs: CORPUS.length, violations: disagreements.length };
    });
  });

  it('refuses inline modes whose keys collide once read (`true` and "true")', () => {
    const dir = folder({
      'cordis.yml':
        '- name: host\n- name: mode\n  config:\n    modes:\n      review:\n        tools:\n          true: deny\n          "true": allow\n- name: demo\n',
    });
    expect(() => planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') })).toThrow(
      /cordis\.yml:8:11: duplicate key `true`/,
    );
  });
});

describe('dsh-mode lint cordis.yml', () => {
  it('lints the deployment: the envelope, the inline modes at cordis.yml:line:column and the policy files it names', () => {
    const dir = folder({
      'cordis.yml': [
        '- name: host',
        '- name: mode',
        '  config:',
        '    policies: [extra.yaml]',
        '    modes:',
        '      review:',
        '        default: deny',
        '        tools: { read: allow }',
        '        tests: [{ tool: read, expect: deny }]',
        '- name: demo',
        '',
      ].join('\n'),
      'extra.yaml': 'mode: guarded\ntools:\n  write: alow\n',
    });
    const bad = run(['lint', 'cordis.yml', '--format', 'json'], dir);
    expect(bad.code, bad.stderr).toBe(1);
    const report = JSON.parse(bad.stdout) as { diagnostics: { file: string; rule: string; line: number }[] };
    const found = report.diagnostics.map((d) => [d.file, d.rule, d.line]);
    expect(found).toContainEqual([join(dir, 'extra.yaml'), 'invalid-decision', 3]);
    writeFileSync(join(dir, 'extra.yaml'), 'mode: guarded\ntools:\n  write: ask\n');
    const inline = run(['lint', 'cordis.yml'], dir);
    expect(inline.code, inline.stdout + inline.stderr).toBe(1);
    expect(inline.stdout).toMatch(/cordis\.yml\n[^]*9:17 +error +test #1 expects `deny` for `read`/);
    expect(inline.stdout).not.toContain('\u0000');
    writeFileSync(join(dir, 'cordis.yml'), '- name: host\n  config: { wrkspace: . }\n');
    const envelope = run(['lint', 'cordis.yml'], dir);
    expect(envelope.code).toBe(1);
    expect(envelope.stdout).toMatch(/2:13 +error +unknown key `wrkspace` in `config` of entry 1 \(`host`\)/);
  });
});

describe('check and matrix --config', () => {
  const cordis =
    '- name: host\n- name: mode\n  config:\n    modes:\n      plan:\n        override: true\n        tools: { bash: allow, exit_plan_mode: ask }\n        default: deny\n- name: demo\n';

  it('check answers for the deployment that will run', () => {
    const dir = folder({ 'cordis.yml': cordis });
    const plain = run(['check', 'plan', 'bash', '--format', 'json'], dir);
    expect(JSON.parse(plain.stdout).decision).toBe('deny');
    const deployed = run(['check', 'plan', 'bash', '--config', 'cordis.yml', '--format', 'json'], dir);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(JSON.parse(deployed.stdout)).toMatchObject({
      decision: 'allow',
      rule: { selector: 'bash', file: join(dir, 'cordis.yml'), line: 7 },
    });
    // The deployment decides which policies load: paths or --no-builtin beside it are a usage error.
    expect(run(['check', 'plan', 'bash', 'policies', '--config', 'cordis.yml'], dir).code).toBe(2);
    expect(run(['check', 'plan', 'bash', '--config', 'cordis.yml', '--no-builtin'], dir).code).toBe(2);
  });

  it('matrix shows the deployment’s modes; a deployment that cannot load gives no answer', () => {
    const dir = folder({ 'cordis.yml': cordis });
    const grid = run(['matrix', '--config', 'cordis.yml', '--format', 'json'], dir);
    expect(grid.code, grid.stderr).toBe(0);
    const report = JSON.parse(grid.stdout) as {
      modes: { name: string }[];
      tools: { name: string }[];
      cells: { decision: string }[][];
    };
    const plan = report.modes.findIndex((m) => m.name === 'plan');
    const bash = report.tools.findIndex((t) => t.name === 'bash');
    expect(report.cells[plan]![bash]!.decision).toBe('allow');
    writeFileSync(join(dir, 'cordis.yml'), '- name: mode\n  config: { polices: [x] }\n');
    const refused = run(['check', 'plan', 'bash', '--config', 'cordis.yml'], dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('unknown key `polices`');
  });
});

let server: Server | undefined;
afterEach(async () => {
  const current = server;
  server = undefined;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((done) => current.close(done));
});

describe('the openai entry’s apiKey', () => {
  it('is sent as the key when the environment has none', async () => {
    const seen: string[] = [];
    server = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const delta = { content: 'Hello.' };
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const dir = folder({
      'cordis.yml': `- name: host\n- name: mode\n- name: openai\n  config: { baseUrl: "${url}", apiKey: from-config, maxRetries: 0 }\n`,
    });
    const env = { ...process.env };
    delete env.DEEPSEEK_API_KEY;
    const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, 'chat', '--config', 'cordis.yml', '--prompt', 'hi'], {
        cwd: dir,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.stdout.resume();
      child.stdin.end();
      child.on('close', (code) => done({ code, stderr }));
    });
    expect(result.code, result.stderr).toBe(0);
    expect(seen).toEqual(['Bearer from-config']);
  });
});

describe('the mode plugin starts from the modes resolved once', () => {
  it('a deployment’s resolved modes start the plugin without reading the policy files again', async () => {
    const { parseDeployment, resolveDeployment } = await import('../../src/deploy/index.js');
    const { createModePlugin } = await import('../../src/engine/index.js');
    const { HostPlugin } = await import('../../src/host/host.js');
    const dir = folder({ 'review.yaml': 'mode: review\ndefault: deny\n' });
    const read = parseDeployment('- name: mode\n  config: { policies: [review.yaml] }\n', 'cordis.yml', dir);
    const { entries, diagnostics } = await resolveDeployment(read.entries);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    rmSync(join(dir, 'review.yaml'));
    const ctx = new Context();
    await ctx.plugin(HostPlugin, { workspace: dir, builtinTools: false });
    await ctx.plugin(createModePlugin(entries[0]!.modes!));
    expect(
      ctx
        .get('modes')!
        .list()
        .map((m) => m.name),
    ).toEqual(['default', 'plan', 'review']);
  });
});
