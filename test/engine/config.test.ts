/**
 * The plugin's configuration: `resolveModeConfig` (used by the plugin, the CLI and the deployment loader) and the
 * plugin refusing to start on errors. Real: policy files in temporary folders, the compiler's loader and validator,
 * the real cordis Context and host; cordis.yml positions come from parsing a real cordis.yml text.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLAN_PATH, parsePolicyText } from '../../src/compile/index.js';
import {
  formatDiagnostics,
  ModeConfigError,
  ModePlugin,
  resolveModeConfig,
  type ConfigSource,
  type ModeConfig,
} from '../../src/engine/index.js';
import modeConfigSchema from '../../schema/mode-config.schema.json' with { type: 'json' };
import policySchema from '../../schema/policy.schema.json' with { type: 'json' };
import { agentOf, resultOf, setup, tempDir } from './setup.js';

/** A cordis.yml text parsed with positions, as the deployment loader passes it: entry 0's config and source. */
function fromCordisYml(text: string, dir: string): [ModeConfig, ConfigSource] {
  const parsed = parsePolicyText(text, 'cordis.yml');
  const entry = (parsed.data as { config?: ModeConfig }[])[0]!;
  const source: ConfigSource = {
    file: 'cordis.yml',
    baseDir: dir,
    locate: (path) => parsed.locate([0, 'config', ...path]),
    keyRange: (path) => parsed.keyRange([0, 'config', ...path]),
  };
  return [entry.config ?? {}, source];
}

const WIDEN_PLAN = 'mode: plan\ntools:\n  write: allow\n  bash: allow\n';

describe('resolveModeConfig', () => {
  it('loads the built-in plan policy first, even with no config', async () => {
    const { value, diagnostics } = await resolveModeConfig(undefined);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(value!.files).toEqual([BUILTIN_PLAN_PATH]);
    expect(value!.list().map((mode) => mode.name)).toEqual(['default', 'plan']);
    expect(value!.get('plan')!.decide('write').decision).toBe('deny');
    expect(value!.get('default')).toBeUndefined();
  });

  it('an operator document allowing write for plan without override: write stays denied (the ceiling)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plan-extra.yaml'), WIDEN_PLAN);
    const { value } = await resolveModeConfig({
      policies: [join(dir, 'plan-extra.yaml')],
      modes: { plan: { tools: { grep: 'deny' } } },
    });
    const plan = value!.get('plan')!;
    expect(plan.decide('write').decision).toBe('deny');
    expect(plan.decide('bash').decision).toBe('deny');
    // Narrowing works: the inline document denies grep.
    expect(plan.decide('grep').decision).toBe('deny');
    expect(plan.decide('read').decision).toBe('allow');
  });

  it('override: true replaces what came before (and lint reports it)', async () => {
    const { value, diagnostics } = await resolveModeConfig({
      modes: { plan: { override: true, tools: { write: 'allow', exit_plan_mode: 'ask' }, default: 'deny' } },
    });
    expect(value!.get('plan')!.decide('write').decision).toBe('allow');
    expect(value!.get('plan')!.decide('read').decision).toBe('deny');
    expect(diagnostics.some((d) => d.code === 'override' && d.severity !== 'error')).toBe(true);
  });

  it('inline modes: the key is the mode; `mode:` may be left out and must equal the key', async () => {
    const ok = await resolveModeConfig({
      modes: { review: { mode: 'review', description: 'Read only.', default: 'deny' } },
    });
    expect(ok.value!.list()).toContainEqual({ name: 'review', description: 'Read only.' });
    const bad = await resolveModeConfig({ modes: { review: { mode: 'other', default: 'deny' } } });
    expect(bad.value).toBeUndefined();
    expect(bad.diagnostics).toMatchObject([
      { code: 'invalid-mode-name', severity: 'error', path: ['modes', 'review', 'mode'], file: null },
    ]);
    expect(bad.diagnostics[0]!.message).toBe('inline mode `review` says `mode: other`: the key is the mode');
  });

  it('rejects a bad config shape with precise findings: unknown keys, reserved and malformed names, wrong types', async () => {
    const { value, diagnostics } = await resolveModeConfig({
      polices: ['x'],
      modes: { default: {}, Review: {}, ok: 'deny' },
    } as unknown as ModeConfig);
    expect(value).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.path, d.message])).toEqual(
      expect.arrayContaining([
        ['unknown-key', ['polices'], 'unknown key `polices`: did you mean `policies`?'],
        ['reserved-mode-name', ['modes', 'default'], 'mode name `default` is reserved: it means no mode'],
        [
          'invalid-mode-name',
          ['modes', 'Review'],
          'invalid mode name `Review`: use lowercase letters, digits and dashes, starting with a letter',
        ],
        ['invalid-type', ['modes', 'ok'], '`modes.ok` must be a mapping: got string `deny`'],
      ]),
    );
    const notList = await resolveModeConfig({ policies: 'policies' } as unknown as ModeConfig);
    expect(notList.diagnostics[0]!.message).toBe('`policies` must be a list: got string `policies`');
  });

  it('rejects a config that is not a mapping, and list items and modes of the wrong type', async () => {
    for (const config of [[], 'plan', 3]) {
      const { value, diagnostics } = await resolveModeConfig(config as unknown as ModeConfig);
      expect(value).toBeUndefined();
      expect(diagnostics[0]).toMatchObject({ code: 'invalid-type', path: [] });
    }
    const items = await resolveModeConfig({ policies: ['ok.yaml', 3], modes: [] } as unknown as ModeConfig);
    expect(items.diagnostics.map((d) => [d.path, d.message])).toEqual([
      [['policies', 1], '`policies[1]` must be a string: got number `3`'],
      [['modes'], '`modes` must be a mapping: got a list'],
    ]);
    // A user-written `source` is not the loader's: it is an unknown key like any other.
    const forged = await resolveModeConfig({ source: { file: 'x' } } as unknown as ModeConfig);
    expect(forged.diagnostics.map((d) => d.code)).toEqual(['unknown-key']);
    expect(formatDiagnostics(items.diagnostics)).toBe(
      [
        '<config>: error: `policies[1]` must be a string: got number `3` (at policies.1) [invalid-type]',
        '<config>: error: `modes` must be a mapping: got a list (at modes) [invalid-type]',
      ].join('\n'),
    );
  });

  it('findings in inline documents carry cordis.yml:line:column when the loader passes its source', async () => {
    const dir = tempDir();
    const text = [
      '- name: mode',
      '  config:',
      '    modes:',
      '      review:',
      '        tool:',
      '          read: allow',
      '        default: nope',
      '',
    ].join('\n');
    const { value, diagnostics } = await resolveModeConfig(...fromCordisYml(text, dir));
    expect(value).toBeUndefined();
    expect(diagnostics.map((d) => [d.file, d.code, d.path, d.range?.start])).toEqual([
      ['cordis.yml', 'unknown-key', ['modes', 'review', 'tool'], { line: 5, column: 9 }],
      ['cordis.yml', 'invalid-decision', ['modes', 'review', 'default'], { line: 7, column: 18 }],
    ]);
    expect(diagnostics[0]!.message).toBe('unknown key `tool` in `modes.review`: did you mean `tools`?');
    // Without a source: JSON paths, no file, no range.
    const bare = await resolveModeConfig({ modes: { review: { tool: {} } } } as unknown as ModeConfig);
    expect(bare.diagnostics.map((d) => [d.file, d.path, d.range])).toEqual([
      [null, ['modes', 'review', 'tool'], undefined],
    ]);
  });

  it('policies resolve from the cordis.yml folder (source.baseDir), folders contribute their files by name', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'policies'));
    writeFileSync(join(dir, 'policies', 'b-review.yaml'), 'mode: review\ndescription: B\ndefault: deny\n');
    writeFileSync(
      join(dir, 'policies', 'a-guarded.yml'),
      'mode: guarded\ndescription: A\ntools:\n  write: ask\n',
    );
    const { value } = await resolveModeConfig(
      ...fromCordisYml('- name: mode\n  config:\n    policies: [policies]\n', dir),
    );
    expect(value!.list().map((mode) => mode.name)).toEqual(['default', 'plan', 'guarded', 'review']);
    expect(value!.files).toEqual([
      BUILTIN_PLAN_PATH,
      join(dir, 'policies', 'a-guarded.yml'),
      join(dir, 'policies', 'b-review.yaml'),
    ]);
  });

  it('a broken policy file is an error with file:line:column; an unreadable path is an error', async () => {
    const dir = tempDir();
    const file = join(dir, 'review.yaml');
    writeFileSync(file, 'mode: review\ntools:\n  write: alow\n');
    const { value, diagnostics } = await resolveModeConfig({ policies: [file, join(dir, 'missing.yaml')] });
    expect(value).toBeUndefined();
    expect(diagnostics.map((d) => [d.file, d.code, d.range?.start.line ?? null])).toEqual([
      [join(dir, 'missing.yaml'), 'io', null],
      [file, 'invalid-decision', 3],
    ]);
  });

  it('semantic findings never block: a failing inline test is reported as a warning and the modes still compile', async () => {
    const { value, diagnostics } = await resolveModeConfig({
      modes: { plan: { tests: [{ tool: 'write', expect: 'allow' }] } },
    });
    expect(value).toBeDefined();
    const failing = diagnostics.filter((d) => d.code === 'failing-test');
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((d) => d.severity !== 'error')).toBe(true);
  });
});

describe('the plugin refuses to start on an invalid configuration', () => {
  it('rejects the ctx.plugin() fiber with every error as file:line:column and registers nothing', async () => {
    const dir = tempDir();
    const file = join(dir, 'review.yaml');
    writeFileSync(file, 'mode: review\ntols:\n  read: allow\n');
    const { ctx } = await setup({ plugin: false });
    const fiber = ctx.plugin(ModePlugin, { policies: [file] });
    const failure = await Promise.resolve(fiber).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ModeConfigError);
    expect((failure as ModeConfigError).message).toBe(
      `invalid mode configuration:\n${file}:2:1: error: unknown key \`tols\`: did you mean \`tools\`? [unknown-key]`,
    );
    expect(ctx.get('modes')).toBeUndefined();
    expect(ctx.tools.get('exit_plan_mode')).toBeUndefined();
    expect(fiber.getEffects()).toEqual([]);
  });

  it('starts with operator policy files and enforces the composed ceiling on the real loop', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plan-extra.yaml'), WIDEN_PLAN);
    const { ctx, warnings } = await setup({
      config: { policies: [join(dir, 'plan-extra.yaml')] },
    });
    const { agent } = agentOf(
      ctx,
      [
        { text: 'W.', tool_calls: [{ name: 'write', arguments: { path: 'a', content: 'a' } }] },
        { text: 'Ok.' },
      ],
      { mode: 'plan' },
    );
    await agent.prompt('go');
    expect(resultOf(agent.session.events, 'write')?.isError).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe('schema/mode-config.schema.json', () => {
  const ajv = new Ajv({ allErrors: true, strict: true });
  ajv.addKeyword({ keyword: 'markdownDescription', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'defaultSnippets', schemaType: 'array' });
  ajv.addSchema(policySchema);
  const validate = ajv.compile(modeConfigSchema);

  it('accepts what resolveModeConfig accepts and rejects what it rejects', async () => {
    const valid: unknown[] = [
      {},
      { policies: ['policies'] },
      { modes: { review: { description: 'R', tools: { read: 'allow' }, default: 'deny' } } },
      {
        modes: {
          review: { mode: 'review', effects: { readOnly: 'allow' }, tests: [{ tool: 'x', expect: 'deny' }] },
        },
      },
    ];
    const invalid: unknown[] = [
      { polices: [] },
      { policies: 'x' },
      { policies: [''] },
      { modes: { default: {} } },
      { modes: { Review: {} } },
      { modes: { review: { tool: {} } } },
      { modes: { review: { default: 'nope' } } },
    ];
    for (const config of valid) {
      expect(validate(config), JSON.stringify(config)).toBe(true);
      expect((await resolveModeConfig(config as ModeConfig)).value, JSON.stringify(config)).toBeDefined();
    }
    for (const config of invalid) {
      expect(validate(config), JSON.stringify(config)).toBe(false);
      expect((await resolveModeConfig(config as ModeConfig)).value, JSON.stringify(config)).toBeUndefined();
    }
  });
});
