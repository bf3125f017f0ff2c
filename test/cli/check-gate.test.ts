/**
 * One tool catalog for every decision (issue 27, item 3): every policy in the repository is run through `check`
 * and through the real gate (a real cordis host with its built-in tools and the mode plugin), for every mode ×
 * built-in tool, with argument samples for bash, read and write, and the two must agree on every call. The
 * policies: policies/plan.yaml and policies/examples/ (each file and all of them), the policy blocks of the README
 * and the guide, the lint rules' documented examples, the seeded lint corpus, and the repository's cordis.yml.
 *
 * And the red-team case that found the split: with `effects: {idempotent: allow}` and `default: deny`, `write`
 * (an idempotent built-in tool) is allowed by the gate and written; the inline test, `check` and `matrix` now say
 * so too.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from 'cordis';
import { BUILTIN_TOOL_ANNOTATIONS, lintPolicies, loadPolicySources } from '../../src/compile/index.js';
import { rules } from '../../src/compile/lint/rules/index.js';
import { readDeployment } from '../../src/deploy/index.js';
import { runCheck } from '../../src/cli/commands/check.js';
import { runMatrix } from '../../src/cli/commands/matrix.js';
import type { ModeConfig } from '../../src/engine/index.js';
import type { Agent } from '../../src/host/index.js';
import { corpusTexts } from '../compile/lint/corpus.js';
import { agentOf, setup, tempDir } from '../engine/setup.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every built-in tool once, and argument samples for the tools that argument rules judge most. */
const CALLS: readonly [string, Record<string, unknown>][] = [
  ['read', { path: 'README.md' }],
  ['read', { path: '.env' }],
  ['read', { path: 'docs/a.md' }],
  ['read', { path: '/etc/hostname' }],
  ['list', { path: '.' }],
  ['grep', { pattern: 'x' }],
  ['write', { path: 'notes/a.md', content: 'x' }],
  ['write', { path: 'src/a.ts', content: 'x' }],
  ['write', { path: '.git/config', content: 'x' }],
  ['edit', { path: 'README.md', old_string: 'a', new_string: 'b' }],
  ['bash', { command: 'git status' }],
  ['bash', { command: 'ls -la' }],
  ['bash', { command: 'rm -rf notes' }],
  ['bash', { command: 'git push origin main' }],
  ['bash', { command: 'sort -o out.txt in.txt' }],
  ['todo_write', { todos: [] }],
  ['exit_plan_mode', { plan: 'Do it.' }],
];

/** A policy source: files for `check PATH...`, or a deployment for `check --config`. */
type Source = { label: string; files: string[] } | { label: string; config: string };

/** Writes `text` as a policy file of its own and keeps it when it loads without an error. */
async function textSource(dir: string, label: string, text: string): Promise<Source | undefined> {
  const file = join(dir, `${label.replace(/[^A-Za-z0-9]+/g, '-')}.yaml`);
  writeFileSync(file, text);
  const load = await loadPolicySources([file]);
  return load.diagnostics.some((d) => d.severity === 'error') ? undefined : { label, files: [file] };
}

/** The ```yaml blocks of a Markdown file that are policy documents (a `mode:` line). */
function yamlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^mode:/m.test(b));
}

async function repositoryPolicies(): Promise<Source[]> {
  const dir = tempDir('dsh-check-gate-');
  const examples = readdirSync(join(ROOT, 'policies/examples'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(ROOT, 'policies/examples', f));
  const sources: Source[] = [{ label: 'policies/plan.yaml', files: [] }];
  for (const file of examples) sources.push({ label: file.slice(ROOT.length + 1), files: [file] });
  sources.push({ label: 'policies/examples (all)', files: examples });
  for (const doc of ['README.md', 'docs/guide.md', 'docs/argument-rules.md']) {
    if (!existsSync(join(ROOT, doc))) continue;
    for (const [i, block] of yamlBlocks(doc).entries()) {
      const source = await textSource(dir, `${doc} block ${i + 1}`, block);
      if (source) sources.push(source);
    }
  }
  for (const rule of Object.values(rules)) {
    for (const kind of ['failing', 'passing'] as const) {
      const text = rule.meta.docs[kind];
      const source = text === undefined ? undefined : await textSource(dir, `rule ${rule.id} ${kind}`, text);
      if (source) sources.push(source);
    }
  }
  const corpus = join(dir, 'corpus');
  mkdirSync(corpus);
  for (const { file, text } of corpusTexts()) writeFileSync(join(corpus, basename(file)), text);
  const load = await loadPolicySources([corpus]);
  if (!load.diagnostics.some((d) => d.severity === 'error'))
    sources.push({ label: 'lint corpus', files: [corpus] });
  sources.push({ label: 'cordis.yml', config: join(ROOT, 'cordis.yml') });
  return sources;
}

/** The mode plugin's config for a source, as the deployment would give it. */
function modeConfig(source: Source): ModeConfig {
  if ('files' in source) return { policies: source.files };
  const entry = readDeployment(source.config).entries.find((e) => e.name === 'mode')!;
  const config = entry.config as ModeConfig;
  return { ...config, policies: (config.policies ?? []).map((p) => resolve(entry.baseDir, p)) };
}

/** A workspace with the files the samples name. */
function workspace(): string {
  const dir = tempDir('dsh-check-gate-ws-');
  for (const [file, text] of Object.entries({
    'README.md': 'a',
    '.env': 'K=v',
    'docs/a.md': 'a',
    'in.txt': 'b\na',
  })) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

async function landedIn(ctx: Context, mode: string): Promise<Agent> {
  const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode });
  await agent.prompt('land');
  return agent;
}

describe('check and the gate decide every call alike', async () => {
  const sources = await repositoryPolicies();

  it('finds the repository policies (the examples, the docs, the rules, the corpus)', () => {
    const labels = sources.map((s) => s.label);
    expect(labels).toContain('policies/examples/review.yaml');
    expect(labels.some((l) => l.startsWith('README.md'))).toBe(true);
    expect(labels.some((l) => l.startsWith('docs/guide.md'))).toBe(true);
    expect(labels.filter((l) => l.startsWith('rule ')).length).toBeGreaterThan(10);
    expect(labels).toContain('lint corpus');
  });

  it('the tools a real host registers carry the catalog’s annotations (the gate reads those)', async () => {
    const { ctx } = await setup();
    for (const [name, annotations] of Object.entries(BUILTIN_TOOL_ANNOTATIONS)) {
      expect(ctx.tools.get(name)?.annotations, name).toEqual(annotations);
    }
  });

  for (const source of sources) {
    it(`${source.label}: every mode × built-in tool`, { timeout: 120_000 }, async () => {
      const ws = workspace();
      const { ctx } = await setup({ config: modeConfig(source), workspace: ws });
      const modes = [...ctx.modes.list().map((m) => m.name)].filter((m) => m !== 'default');
      expect(modes.length).toBeGreaterThan(0);
      const disagreements: string[] = [];
      let asked = 0;
      for (const mode of modes) {
        const agent = await landedIn(ctx, mode);
        for (const [tool, args] of CALLS) {
          const gate = await ctx.tools.judge({ callId: 'c', name: tool, arguments: args, agent });
          const check = await runCheck({
            mode,
            tool,
            args,
            workspace: ws,
            cwd: ws,
            ...('files' in source ? { paths: source.files } : { paths: [], config: source.config }),
          });
          if (check.kind !== 'decided') throw new Error(`check ${mode} ${tool}: ${check.kind}`);
          asked++;
          if (check.decision !== gate.kind) {
            disagreements.push(
              `${mode} ${tool} ${JSON.stringify(args)}: check ${check.decision}, gate ${gate.kind}`,
            );
          }
        }
      }
      expect(disagreements).toEqual([]);
      expect(asked).toBe(modes.length * CALLS.length);
    });
  }
});

describe('the red-team case: an idempotent-allowing mode and the idempotent built-in write', () => {
  const POLICY = 'mode: idem\neffects:\n  idempotent: allow\ndefault: deny\n';

  it('the gate allows write (its own annotations say idempotent) and the file is written', async () => {
    const dir = tempDir('dsh-idem-');
    writeFileSync(join(dir, 'idem.yaml'), POLICY);
    const { ctx, workspace: ws } = await setup({ config: { policies: [join(dir, 'idem.yaml')] } });
    const { agent } = agentOf(
      ctx,
      [
        { text: 'W.', tool_calls: [{ name: 'write', arguments: { path: 'made.txt', content: 'x' } }] },
        { text: 'ok' },
      ],
      { mode: 'idem' },
    );
    await agent.prompt('write');
    expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('x');
  });

  it('check says allow, by `effects.idempotent`', async () => {
    const dir = tempDir('dsh-idem-');
    writeFileSync(join(dir, 'idem.yaml'), POLICY);
    const report = await runCheck({ mode: 'idem', tool: 'write', paths: ['idem.yaml'], cwd: dir });
    expect(report).toMatchObject({
      kind: 'decided',
      decision: 'allow',
      rule: { selector: 'effects.idempotent' },
    });
    // A tool the catalog does not know still takes MCP's defaults (not idempotent).
    const other = await runCheck({ mode: 'idem', tool: 'mcp__x__y', paths: ['idem.yaml'], cwd: dir });
    expect(other).toMatchObject({ kind: 'decided', decision: 'deny', rule: { selector: 'default' } });
  });

  it('the inline test `write: expect deny` fails, and `expect allow` passes', async () => {
    const dir = tempDir('dsh-idem-');
    const lintOf = async (expect: string) => {
      writeFileSync(join(dir, `${expect}.yaml`), `${POLICY}tests:\n  - { tool: write, expect: ${expect} }\n`);
      const load = await loadPolicySources([join(dir, `${expect}.yaml`)]);
      return lintPolicies(load, { rules: [rules['failing-test']] }).map((d) => d.code);
    };
    expect(await lintOf('deny')).toEqual(['failing-test']);
    expect(await lintOf('allow')).toEqual([]);
  });

  it('matrix shows write allowed, with a --tools catalog that lists write without annotations too', async () => {
    const dir = tempDir('dsh-idem-');
    writeFileSync(join(dir, 'idem.yaml'), POLICY);
    writeFileSync(join(dir, 'tools.json'), JSON.stringify([{ name: 'write' }]));
    for (const catalog of [undefined, 'tools.json']) {
      const report = await runMatrix({ paths: ['idem.yaml'], cwd: dir, ...(catalog ? { catalog } : {}) });
      if (report.kind !== 'matrix') throw new Error(report.kind);
      const row = report.tools.findIndex((t) => t.name === 'write' && t.label === 'write');
      const idem = report.modes.findIndex((m) => m.name === 'idem');
      expect(report.cells[idem]![row]!.decision).toBe('allow');
    }
  });
});
