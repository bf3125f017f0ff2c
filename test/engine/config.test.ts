/**
 * The plugin's configuration: `resolveModeConfig` (used by the plugin, the CLI and the deployment loader) and the
 * plugin refusing to start on errors. Real: policy files in temporary folders, the compiler's loader and validator,
 * the real cordis Context and host; cordis.yml positions come from parsing a real cordis.yml text.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLAN_PATH } from '../../src/compile/api.js';
import { parsePolicyText } from '../../src/compile/language/parse.js';
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

/** A range on one line, columns end exclusive. */
function at(line: number, column: number, endColumn: number) {
  return { start: { line, column }, end: { line, column: endColumn } };
}

const TRAP_HELP =
  'allow or ask for at least one tool, or add `exit_plan_mode: ask` so the agent can propose leaving';
const MODE_CONFIG_KEYS = 'allowed keys here: `policies`, `modes`';
const INLINE_KEYS =
  'allowed keys here: `mode`, `description`, `section`, `tools`, `effects`, `default`, `override`, `sandbox`, `tests`';

describe('resolveModeConfig', () => {
  it('loads the built-in plan policy first, even with no config', async () => {
    const { value, diagnostics } = await resolveModeConfig(undefined);
    expect(diagnostics).toEqual([]);
    expect(value!.files).toEqual([BUILTIN_PLAN_PATH]);
    expect(value!.list().map((mode) => mode.name)).toEqual(['default', 'plan']);
    expect(value!.get('plan')!.decide('write').decision).toBe('deny');
    expect(value!.get('default')).toBeUndefined();
  });

  it('an operator document allowing write for plan without override: write stays denied (the ceiling)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plan-extra.yaml'), WIDEN_PLAN);
    const { value, diagnostics } = await resolveModeConfig({
      policies: [join(dir, 'plan-extra.yaml')],
      modes: { plan: { tools: { grep: 'deny' } } },
    });
    // Lint says so: the widening rules change nothing under the built-in plan's ceiling.
    const noEffect = (tool: string, range: ReturnType<typeof at>) => ({
      code: 'no-op-rule',
      severity: 'info',
      message: `rule \`${tool}: allow\` changes nothing: mode \`plan\` decides the same without it`,
      messageId: 'noEffect',
      file: join(dir, 'plan-extra.yaml'),
      path: ['tools', tool],
      range,
      help: 'remove it, or give it a `reason` if it documents intent',
    });
    expect(diagnostics).toEqual([noEffect('write', at(3, 3, 8)), noEffect('bash', at(4, 3, 7))]);
    const plan = value!.get('plan')!;
    expect(plan.decide('write').decision).toBe('deny');
    // bash keeps plan's command patterns: a read-only command runs, anything else stays denied.
    expect(plan.decideCall!({ name: 'bash', arguments: { command: 'rm -rf x' } }).decision).toBe('deny');
    expect(plan.decideCall!({ name: 'bash', arguments: { command: 'git log -5' } }).decision).toBe('allow');
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
    expect(diagnostics).toEqual([
      {
        code: 'override',
        severity: 'info',
        message: 'this document replaces every earlier document of mode `plan`',
        messageId: 'override',
        file: null,
        path: ['override'],
        help: 'remove `override: true` to compose as a ceiling, where the most restrictive decision wins',
      },
    ]);
  });

  it('inline modes: the key is the mode; `mode:` may be left out and must equal the key', async () => {
    const ok = await resolveModeConfig({
      modes: { review: { mode: 'review', description: 'Read only.', default: 'deny' } },
    });
    expect(ok.value!.list()).toEqual([
      { name: 'default', description: expect.any(String) },
      { name: 'plan', description: expect.any(String) },
      { name: 'review', description: 'Read only.' },
    ]);
    expect(ok.diagnostics).toEqual([
      {
        code: 'trap-mode',
        severity: 'warning',
        message: 'mode `review` denies every tool and offers no exit',
        messageId: 'trap',
        file: null,
        path: ['mode'],
        help: TRAP_HELP,
      },
    ]);
    const bad = await resolveModeConfig({ modes: { review: { mode: 'other', default: 'deny' } } });
    expect(bad.value).toBeUndefined();
    expect(bad.diagnostics).toEqual([
      {
        code: 'invalid-mode-name',
        severity: 'error',
        message: 'inline mode `review` says `mode: other`: the key is the mode',
        file: null,
        path: ['modes', 'review', 'mode'],
        help: 'drop `mode:` or make it `review`',
      },
    ]);
  });

  it('rejects a bad config shape with precise findings: unknown keys, reserved and malformed names, wrong types', async () => {
    const { value, diagnostics } = await resolveModeConfig({
      polices: ['x'],
      modes: { default: {}, Review: {}, ok: 'deny' },
    } as unknown as ModeConfig);
    expect(value).toBeUndefined();
    expect(diagnostics).toEqual([
      {
        code: 'invalid-mode-name',
        severity: 'error',
        message:
          'invalid mode name `Review`: use lowercase letters, digits and dashes, starting with a letter',
        file: null,
        path: ['modes', 'Review'],
      },
      {
        code: 'invalid-type',
        severity: 'error',
        message: '`modes.ok` must be a mapping: got string `deny`',
        file: null,
        path: ['modes', 'ok'],
      },
      {
        code: 'reserved-mode-name',
        severity: 'error',
        message: 'mode name `default` is reserved: it means no mode',
        file: null,
        path: ['modes', 'default'],
        help: 'pick another name',
      },
      {
        code: 'unknown-key',
        severity: 'error',
        message: 'unknown key `polices`: did you mean `policies`?',
        file: null,
        path: ['polices'],
        help: MODE_CONFIG_KEYS,
      },
    ]);
    const notList = await resolveModeConfig({ policies: 'policies' } as unknown as ModeConfig);
    expect(notList.diagnostics).toEqual([
      {
        code: 'invalid-type',
        severity: 'error',
        message: '`policies` must be a list: got string `policies`',
        file: null,
        path: ['policies'],
      },
    ]);
  });

  it('rejects a config that is not a mapping, and list items and modes of the wrong type', async () => {
    const cases: [unknown, string][] = [
      [[], 'a list'],
      ['plan', 'string `plan`'],
      [3, 'number `3`'],
    ];
    for (const [config, got] of cases) {
      const { value, diagnostics } = await resolveModeConfig(config as ModeConfig);
      expect(value).toBeUndefined();
      expect(diagnostics).toEqual([
        {
          code: 'invalid-type',
          severity: 'error',
          message: `document must be a mapping: got ${got}`,
          file: null,
          path: [],
        },
      ]);
    }
    const items = await resolveModeConfig({ policies: ['ok.yaml', 3], modes: [] } as unknown as ModeConfig);
    expect(items.diagnostics).toEqual([
      {
        code: 'invalid-type',
        severity: 'error',
        message: '`policies[1]` must be a string: got number `3`',
        file: null,
        path: ['policies', 1],
      },
      {
        code: 'invalid-type',
        severity: 'error',
        message: '`modes` must be a mapping: got a list',
        file: null,
        path: ['modes'],
      },
    ]);
    // A user-written `source` is not the loader's: it is an unknown key like any other.
    const forged = await resolveModeConfig({ source: { file: 'x' } } as unknown as ModeConfig);
    expect(forged.diagnostics).toEqual([
      {
        code: 'unknown-key',
        severity: 'error',
        message: 'unknown key `source`',
        file: null,
        path: ['source'],
        help: MODE_CONFIG_KEYS,
      },
    ]);
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
    const unknownTool = {
      code: 'unknown-key',
      severity: 'error',
      message: 'unknown key `tool` in `modes.review`: did you mean `tools`?',
      file: 'cordis.yml',
      path: ['modes', 'review', 'tool'],
      range: at(5, 9, 13),
      help: INLINE_KEYS,
    };
    expect(diagnostics).toEqual([
      unknownTool,
      {
        code: 'invalid-decision',
        severity: 'error',
        message: '`nope` is not a decision for `modes.review.default`',
        file: 'cordis.yml',
        path: ['modes', 'review', 'default'],
        range: at(7, 18, 22),
        help: 'use `allow`, `deny` or `ask`',
      },
    ]);
    // Without a source: JSON paths, no file, no range.
    const bare = await resolveModeConfig({ modes: { review: { tool: {} } } } as unknown as ModeConfig);
    const { range: _range, ...withoutRange } = unknownTool;
    expect(bare.diagnostics).toEqual([{ ...withoutRange, file: null }]);
  });

  it('policies resolve from the cordis.yml folder (source.baseDir), folders contribute their files by name', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'policies'));
    writeFileSync(join(dir, 'policies', 'b-review.yaml'), 'mode: review\ndescription: B\ndefault: deny\n');
    writeFileSync(
      join(dir, 'policies', 'a-guarded.yml'),
      'mode: guarded\ndescription: A\ntools:\n  write: ask\n',
    );
    const { value, diagnostics } = await resolveModeConfig(
      ...fromCordisYml('- name: mode\n  config:\n    policies: [policies]\n', dir),
    );
    expect(diagnostics).toEqual([
      {
        code: 'trap-mode',
        severity: 'warning',
        message: 'mode `review` denies every tool and offers no exit',
        messageId: 'trap',
        file: join(dir, 'policies', 'b-review.yaml'),
        path: ['mode'],
        range: at(1, 1, 5),
        help: TRAP_HELP,
      },
    ]);
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
    expect(diagnostics).toEqual([
      {
        code: 'io',
        severity: 'error',
        message: `cannot read \`${join(dir, 'missing.yaml')}\`: no such file or folder`,
        file: join(dir, 'missing.yaml'),
        path: [],
      },
      {
        code: 'invalid-decision',
        severity: 'error',
        message: '`alow` is not a decision for `tools.write`: did you mean `allow`?',
        file,
        path: ['tools', 'write'],
        range: at(3, 10, 14),
        help: 'use `allow`, `deny` or `ask`',
      },
    ]);
  });

  it('semantic findings never block: a failing inline test is reported as a warning and the modes still compile', async () => {
    const { value, diagnostics } = await resolveModeConfig({
      modes: { plan: { tests: [{ tool: 'write', expect: 'allow' }] } },
    });
    expect(value!.get('plan')!.decide('write').decision).toBe('deny');
    const rule = value!.get('plan')!.decide('write').rule;
    expect(diagnostics).toEqual([
      {
        code: 'failing-test',
        severity: 'warning',
        message: 'test #1 expects `allow` for `write` but mode `plan` decides `deny`',
        messageId: 'failing',
        file: null,
        path: ['tests', 0],
        help: `decided by \`default\` at dsh-mode:policies/plan.yaml:${rule.line}:${rule.column}: change that rule or the expectation`,
      },
    ]);
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
