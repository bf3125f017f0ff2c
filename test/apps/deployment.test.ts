/**
 * The deployment loader (src/deploy, started by src/apps/deployment.ts): cordis.yml parsed with positions, each entry mapped to a known
 * plugin, every problem reported as file:line:column before anything starts, and the real deployments (the
 * repository's cordis.yml, the embedded default) started on a real cordis Context. The CLI refuses a bad file with
 * exit code 2 (chat and acp, the real binary).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/deploy/index.js';
import { runCli } from '../cli/run-in-process.js';
import {
  DeploymentError,
  embeddedDeployment,
  planDeployment,
  startDeployment,
} from '../../src/apps/deployment.js';

const ROOT = resolve(import.meta.dirname, '../..');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dsh-deploy-'));
}

function issuesOf(text: string): string[] {
  return parseDeployment(text, 'cordis.yml', '/base').diagnostics.map(
    (d) => `${d.range?.start.line}:${d.range?.start.column} ${d.message}`,
  );
}

/** Starts a deployment written to a temp cordis.yml; returns the issues it was refused with, or [] and disposes. */
async function startIssues(text: string, files: Record<string, string> = {}): Promise<string[]> {
  const dir = tempDir();
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  writeFileSync(join(dir, 'cordis.yml'), text);
  try {
    const plan = planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') });
    const runtime = await startDeployment(plan, { workspace: dir, log: () => {} });
    await runtime.dispose();
    return [];
  } catch (error) {
    if (!(error instanceof DeploymentError)) throw error;
    return error.diagnostics.map(
      (d) =>
        `${d.file === join(dir, 'cordis.yml') ? 'cordis.yml' : d.file}:${d.range?.start.line}:${d.range?.start.column} ${d.message}`,
    );
  }
}

describe('parseDeployment', () => {
  it('maps each entry to a known plugin and resolves declared paths from the file folder', () => {
    const parsed = parseDeployment(
      '- name: host\n- id: m\n  name: scripted\n  config: { script: s.yaml }\n',
      'x.yml',
      '/base',
    );
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.entries.map((e) => [e.id, e.name])).toEqual([
      ['host', 'host'],
      ['m', 'scripted'],
    ]);
    expect(parsed.entries[1]!.config.script).toBe('/base/s.yaml');
  });

  it('reports an unknown plugin with a did-you-mean at its position', () => {
    expect(issuesOf('- name: host\n- name: mdoe\n')).toEqual([
      '2:9 unknown plugin `mdoe`: did you mean `mode`?',
    ]);
  });

  it('reports unknown entry keys, duplicate ids, a missing name and a config that is not a mapping', () => {
    expect(
      issuesOf('- name: host\n  confg: {}\n- name: host\n- config: {}\n- name: mode\n  config: [1]\n'),
    ).toEqual([
      '2:3 unknown key `confg` in entry 1 (`host`): did you mean `config`?',
      '4:3 missing required key `name` in entry 3',
      '6:11 `config` of entry 4 (`mode`) must be a mapping: got a list',
    ]);
    expect(issuesOf('- name: host\n- name: host\n')).toEqual(['2:9 duplicate plugin id `host`']);
  });

  it('refuses YAML errors, duplicate keys and a document that is not a list', () => {
    expect(issuesOf('- name: host\n  name: mode\n')).toEqual(['2:3 duplicate key `name`']);
    expect(issuesOf('- name: [host\n')[0]).toMatch(/^2:1 flow sequence/);
    expect(issuesOf('name: host\n')).toEqual(['1:1 the deployment must be a list: got a mapping']);
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${'bcdefghij'[i]}: &${'bcdefghij'[i]} [${Array(10)
          .fill(`*${i === 0 ? 'a' : 'bcdefghij'[i - 1]}`)
          .join(', ')}]`,
      );
    const text = `- name: host\n  config:\n${bomb.map((l) => `    ${l}`).join('\n')}\n`;
    expect(issuesOf(text)).toEqual(['1:1 deployment expands too many aliases: the limit is 100']);
  });
});

describe('startDeployment', () => {
  it('checks every entry before starting: config keys, a missing host and model, a second model', async () => {
    expect(await startIssues('- name: mode\n- name: demo\n  config: { speed: 2 }\n- name: openai\n')).toEqual(
      ['cordis.yml:3:13 unknown key `speed` in `config` of entry 2 (`demo`): it takes no keys'],
    );
    expect(await startIssues('- name: mode\n- name: demo\n- name: openai\n')).toEqual([
      'cordis.yml:1:1 the deployment has no `host` entry',
      'cordis.yml:3:9 a deployment has one model; `openai` is a second one',
    ]);
    expect(await startIssues('- name: host\n  config: { builtinTools: "yes" }\n')).toEqual([
      'cordis.yml:2:27 `config.builtinTools` of entry 1 (`host`) must be a boolean: got string `yes`',
    ]);
    expect(await startIssues('- name: host\n')).toEqual([
      'cordis.yml:1:1 the deployment has no model: add `- name: demo` (the scripted walk-through), `- name: scripted` or `- name: openai`',
    ]);
  });

  it('reports mode policy errors inside cordis.yml at their line and column', async () => {
    const issues = await startIssues(
      '- name: host\n- name: mode\n  config:\n    modes:\n      review:\n        tools: { write: alow }\n- name: demo\n',
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^cordis\.yml:6:25 `alow` is not a decision/);
  });

  it('reports a policy file that does not exist at its entry in cordis.yml, as written there', async () => {
    const issues = await startIssues(
      '- name: host\n- name: mode\n  config: { policies: [missing.yaml] }\n- name: demo\n',
    );
    expect(issues).toEqual(['cordis.yml:3:24 policy file `missing.yaml` does not exist']);
  });

  it('a glob conflict is logged at start with the severity lint gives it (an error), and does not block', async () => {
    const dir = tempDir();
    const text =
      '- name: host\n- name: mode\n  config:\n    modes:\n      review:\n        tools: { "mcp__*": deny, "*_read": allow }\n        default: deny\n- name: demo\n';
    writeFileSync(join(dir, 'cordis.yml'), text);
    const logged: string[] = [];
    const runtime = await startDeployment(planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') }), {
      workspace: dir,
      log: (line) => logged.push(line),
    });
    await runtime.dispose();
    const conflict = logged.filter((l) => l.includes('[conflicting-globs]'));
    expect(conflict).toHaveLength(1);
    expect(conflict[0]).toMatch(/^\[error\] mode: .*cordis\.yml:6:\d+: error: /);
    const lint = await runCli(['lint', 'cordis.yml', '--format', 'json'], { cwd: dir });
    const found = (JSON.parse(lint.stdout) as { diagnostics: { rule: string; severity: string }[] })
      .diagnostics;
    expect(found.filter((d) => d.rule === 'conflicting-globs').map((d) => d.severity)).toEqual(['error']);
  });

  it('a --model-script that is missing or bad is a plain message, with no made-up position', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'x: [\n');
    const failure = async (script: string): Promise<string> => {
      try {
        const runtime = await startDeployment(embeddedDeployment({}), {
          workspace: dir,
          modelScript: join(dir, script),
          log: () => {},
        });
        await runtime.dispose();
        return 'started';
      } catch (error) {
        if (!(error instanceof DeploymentError)) throw error;
        return error.message;
      }
    };
    expect(await failure('nope.json')).toBe(
      `--model-script: cannot read the script \`${join(dir, 'nope.json')}\`: no such file`,
    );
    const bad = await failure('bad.yaml');
    expect(bad).toMatch(
      new RegExp(`^--model-script: ${join(dir, 'bad.yaml').replace(/[.\\/]/g, '\\$&')}:\\d+:\\d+: `),
    );
    expect(bad).not.toContain('1:1: model');
  });

  it('starts the repository cordis.yml: the host, plan and review modes, the demo model', async () => {
    const before = statSync(join(ROOT, 'cordis.yml')).mtimeMs;
    const text = readFileSync(join(ROOT, 'cordis.yml'), 'utf8');
    const dir = tempDir();
    const plan = planDeployment({ cwd: ROOT, config: join(ROOT, 'cordis.yml') });
    const runtime = await startDeployment(plan, { workspace: dir, log: () => {} });
    try {
      expect(runtime.modes?.list().map((m) => m.name)).toEqual(['default', 'plan', 'review']);
      expect(runtime.model.name).toBe('demo');
      expect(runtime.startMode).toBe('plan');
      expect(runtime.ctx.tools.names()).toEqual(expect.arrayContaining(['read', 'write', 'exit_plan_mode']));
    } finally {
      await runtime.dispose();
    }
    // Read-only: the loader never writes the file.
    expect(readFileSync(join(ROOT, 'cordis.yml'), 'utf8')).toBe(text);
    expect(statSync(join(ROOT, 'cordis.yml')).mtimeMs).toBe(before);
  });

  it('takes the workspace from the file (relative to it) unless the command line forces one', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'cordis.yml'), '- name: host\n  config: { workspace: sandbox }\n- name: demo\n');
    const plan = planDeployment({ cwd: dir, config: join(dir, 'cordis.yml') });
    const fromFile = await startDeployment(plan, { workspace: '/elsewhere', log: () => {} });
    expect(fromFile.workspace).toBe(join(dir, 'sandbox'));
    expect(fromFile.ctx.sessions.dir).toBe(join(dir, 'sandbox', '.dsh', 'sessions'));
    await fromFile.dispose();
    const forced = await startDeployment(plan, {
      workspace: join(dir, 'cli'),
      forceWorkspace: true,
      log: () => {},
    });
    expect(forced.workspace).toBe(join(dir, 'cli'));
    await forced.dispose();
  });

  it('uses the demo model by default and the OpenAI model when DEEPSEEK_API_KEY is set', () => {
    expect(embeddedDeployment({}).entries.map((e) => e.name)).toEqual(['host', 'mode', 'demo']);
    expect(embeddedDeployment({ DEEPSEEK_API_KEY: 'k' }).entries.map((e) => e.name)).toEqual([
      'host',
      'mode',
      'openai',
    ]);
  });

  it('runs the mcp plugin in the embedded default when asked (acp), with no servers of its own', () => {
    expect(embeddedDeployment({}, { mcp: true }).entries.map((e) => [e.name, e.config])).toEqual([
      ['host', {}],
      ['mode', {}],
      ['mcp', {}],
      ['demo', {}],
    ]);
  });
});

describe('a bad deployment on the command line', () => {
  for (const command of ['chat', 'acp']) {
    it(`dsh-mode ${command} exits 2 with file:line:column and nothing on stdout for acp`, () => {
      const dir = tempDir();
      writeFileSync(join(dir, 'bad.yml'), '- name: host\n- name: hots\n');
      const env = { ...process.env };
      delete env.DEEPSEEK_API_KEY;
      const run = spawnSync(
        process.execPath,
        [join(ROOT, 'bin/dsh-mode.mjs'), command, '--config', 'bad.yml'],
        {
          cwd: dir,
          encoding: 'utf8',
          input: '',
          env,
        },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('bad.yml:2:9: unknown plugin `hots`: did you mean `host`?');
      if (command === 'acp') expect(run.stdout).toBe('');
    });
  }
});
