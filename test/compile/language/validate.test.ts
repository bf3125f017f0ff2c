// parsePolicyText + validatePolicy through loadPolicyText: every finding with its exact position (1-based,
// end exclusive), real YAML and JSON text, no fakes.
import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../../src/compile/api.js';
import { parsePolicyText } from '../../../src/compile/language/parse.js';
import { validatePolicy } from '../../../src/compile/language/validate.js';
import { where } from '../helpers.js';

function findings(text: string) {
  return loadPolicyText(text, 'p.yaml').diagnostics;
}

describe('validatePolicy: unknown keys', () => {
  it('points at a misspelt `tool:` and suggests `tools`', () => {
    const [d, ...rest] = findings('mode: review\ntool:\n  read: allow\n');
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('unknown-key 2:1-2:5');
    expect(d!.message).toBe('unknown key `tool`: did you mean `tools`?');
    expect(d!.path).toEqual(['tool']);
    expect(d!.file).toBe('p.yaml');
    expect(d!.help).toContain('`tools`');
  });

  it('suggests within nested objects: rule objects, effects and test annotations', () => {
    const ds = findings(
      [
        'mode: x',
        'tools:',
        '  a: { decision: deny, reson: why }',
        'effects:',
        '  readonly: allow',
        'tests:',
        '  - { tool: a, expect: deny, annotation: {} }',
      ].join('\n'),
    );
    expect(ds.map((d) => [where(d), d.message])).toEqual([
      ['unknown-key 3:24-3:29', 'unknown key `reson` in `tools.a`: did you mean `reason`?'],
      ['unknown-key 5:3-5:11', 'unknown key `readonly` in `effects`: did you mean `readOnly`?'],
      ['unknown-key 7:30-7:40', 'unknown key `annotation` in `tests[0]`: did you mean `annotations`?'],
    ]);
  });

  it('gives no suggestion when nothing is close', () => {
    const [d] = findings('mode: x\nzzzzzzzz: 1\n');
    expect(d!.message).toBe('unknown key `zzzzzzzz`');
  });

  it('reports a top-level `__proto__` key as unknown, without touching prototypes', () => {
    const [d] = findings('mode: x\n__proto__: { polluted: true }\n');
    expect(where(d!)).toBe('unknown-key 2:1-2:10');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('validatePolicy: decisions and mode names', () => {
  it('rejects a misspelt decision at the value, with a suggestion', () => {
    const ds = findings('mode: x\ntools:\n  read: alow\n');
    expect(ds.map((d) => [where(d), d.message])).toEqual([
      ['invalid-decision 3:9-3:13', '`alow` is not a decision for `tools.read`: did you mean `allow`?'],
    ]);
  });

  it('rejects a decision of the wrong type once, without oneOf noise', () => {
    const ds = findings('mode: x\ntools:\n  a: 5\n  b: [allow]\ndefault: maybe\n');
    expect(ds.map(where)).toEqual([
      'invalid-decision 3:6-3:7',
      'invalid-decision 4:6-4:13',
      'invalid-decision 5:10-5:15',
    ]);
    expect(ds[0]!.help).toBe('use `allow`, `deny`, `ask` or `{ decision, reason }`');
  });

  it('reports a bad decision inside a rule object at that value', () => {
    const ds = findings('mode: x\ntools:\n  a: { decision: nope }\n');
    expect(ds.map(where)).toEqual(['invalid-decision 3:18-3:22']);
  });

  it('rejects malformed mode names at the value', () => {
    for (const bad of ['Plan', '1plan', 'plan_mode', '-x', '"plan mode"']) {
      const ds = findings(`mode: ${bad}\n`);
      expect(ds.map((d) => d.code)).toEqual(['invalid-mode-name']);
      expect(ds[0]!.range!.start).toEqual({ line: 1, column: 7 });
    }
  });

  it('rejects the reserved mode name `default`', () => {
    const [d, ...rest] = findings('mode: default\n');
    expect(rest).toEqual([]);
    expect(where(d!)).toBe('reserved-mode-name 1:7-1:14');
  });

  it('requires `mode` and reports wrong types', () => {
    expect(findings('tools: {}\n').map((d) => [d.code, d.message])).toEqual([
      ['missing-key', 'missing required key `mode`'],
    ]);
    expect(findings('mode: x\ntools: [read]\n').map((d) => [where(d), d.message])).toEqual([
      ['invalid-type 2:8-2:14', '`tools` must be a mapping: got a list'],
    ]);
    expect(findings('mode: x\noverride: yes please\n').map((d) => d.code)).toEqual(['invalid-type']);
    expect(findings('- a\n').map((d) => [d.code, d.message])).toEqual([
      ['invalid-type', 'document must be a mapping: got a list'],
    ]);
    expect(findings('').map((d) => [d.code, d.message])).toEqual([
      ['invalid-type', 'document must be a mapping: got null'],
    ]);
  });

  it('reports every bad rule of a file, and refuses the file', () => {
    const result = loadPolicyText(
      'mode: x\ntools:\n  a: alow\n  b: allow\n  c: dney\n  d: { decision: ask, why: x }\n',
      'p.yaml',
    );
    expect(result.documents).toEqual([]);
    expect(result.diagnostics.map(where)).toEqual([
      'invalid-decision 3:6-3:10',
      'invalid-decision 5:6-5:10',
      'unknown-key 6:23-6:26',
    ]);
  });
});

describe('parsePolicyText: syntax', () => {
  it('reports duplicate keys at the second key and still reports schema findings', () => {
    const ds = findings('mode: x\ntools:\n  read: allow\n  read: deny\nzap: 1\n');
    expect(ds.map((d) => [where(d), d.message])).toEqual([
      ['duplicate-key 4:3-4:7', 'duplicate key `read`'],
      ['unknown-key 5:1-5:4', 'unknown key `zap`'],
    ]);
  });

  it('reports YAML syntax errors with a position and builds no data', () => {
    const parsed = parsePolicyText('mode: x\ntools: {read: allow\n', 'p.yaml');
    expect(parsed.data).toBeUndefined();
    expect(parsed.diagnostics.length).toBeGreaterThan(0);
    expect(parsed.diagnostics.every((d) => d.code === 'syntax' && d.range !== undefined)).toBe(true);
    expect(validatePolicy(parsed).document).toBeUndefined();
  });

  it('refuses several YAML documents in one file', () => {
    const ds = findings('mode: a\n---\nmode: b\n');
    expect(ds.map((d) => d.code)).toEqual(['syntax']);
    expect(ds[0]!.range!.start.line).toBe(2);
  });

  it('parses JSON, tabs included, with positions', () => {
    const text = '{\n\t"mode": "x",\n\t"tools": { "read": "alow" }\n}\n';
    const ds = loadPolicyText(text, 'p.json').diagnostics;
    expect(ds.map(where)).toEqual(['invalid-decision 3:21-3:27']);
    const ok = loadPolicyText(
      '{"$schema": "../schema/policy.schema.json", "mode": "x", "default": "deny"}',
      'p.json',
    );
    expect(ok.diagnostics).toEqual([]);
    expect(ok.documents[0]!.document.default).toBe('deny');
  });

  it('accepts a byte-order mark', () => {
    expect(loadPolicyText('\ufeffmode: x\n', null).documents).toHaveLength(1);
  });
});

describe('ParsedDocument.locate and keyRange', () => {
  const parsed = parsePolicyText(
    'mode: x\ntools:\n  "web_*": { decision: deny, reason: no }\ntests:\n  - { tool: a, expect: deny }\n',
    'p.yaml',
  );

  it('gives the value range and the key range of a path', () => {
    expect(parsed.locate(['tools', 'web_*'])).toEqual({
      start: { line: 3, column: 12 },
      end: { line: 3, column: 42 },
    });
    expect(parsed.keyRange(['tools', 'web_*'])).toEqual({
      start: { line: 3, column: 3 },
      end: { line: 3, column: 10 },
    });
    expect(parsed.locate(['tests', 0, 'expect'])).toEqual({
      start: { line: 5, column: 24 },
      end: { line: 5, column: 28 },
    });
  });

  it('falls back to the closest parent for a missing path', () => {
    expect(parsed.locate(['tools', 'nope'])).toEqual(parsed.locate(['tools']));
    expect(parsed.keyRange(['tools', 'nope'])).toEqual(parsed.keyRange(['tools']));
    expect(parsed.locate(['tests', 7])).toEqual(parsed.locate(['tests']));
  });

  it('locates a key with an empty value', () => {
    const p = parsePolicyText('mode: x\ntools:\n', null);
    expect(p.locate(['tools'])).toEqual({ start: { line: 2, column: 1 }, end: { line: 2, column: 6 } });
  });
});

describe('validatePolicy: the remaining shapes', () => {
  it('reports an empty selector once, at its key', () => {
    const ds = findings('mode: x\ntools:\n  "": allow\n');
    expect(ds.map((d) => [where(d), d.message, d.path])).toEqual([
      ['schema 3:3-3:5', 'key `` in `tools` must not be empty', ['tools', '']],
    ]);
  });

  it('reports an empty test tool name at its value', () => {
    const ds = findings('mode: x\ntests:\n  - { tool: "", expect: deny }\n');
    expect(ds.map((d) => [where(d), d.message])).toEqual([
      ['schema 3:13-3:15', '`tests[0].tool` must not be empty'],
    ]);
  });

  it('keeps YAML warnings as warnings and does not refuse the file for them', () => {
    const r = loadPolicyText('mode: !foo x\n', 'p.yaml');
    expect(r.diagnostics.map((d) => [where(d), d.severity])).toEqual([['syntax 1:7-1:8', 'warning']]);
    expect(r.documents).toHaveLength(1);
  });

  it('reports a complex key as unknown and binary data by kind', () => {
    expect(findings('mode: x\n? [a, b]\n: c\n').map((d) => [d.code, d.message])).toEqual([
      ['unknown-key', 'unknown key `[ a, b ]`'],
    ]);
    expect(findings('mode: x\nsection: !!binary aGVsbG8=\n').map((d) => d.message)).toEqual([
      '`section` must be a string: got binary data',
    ]);
  });
});

describe('validatePolicy: messages for every shape of value', () => {
  it.each([
    [
      'mode: x\ntools:\n  a: { reason: why }\n',
      'missing-key',
      'missing required key `decision` in `tools.a`',
    ],
    ['mode: x\ntests: {}\n', 'invalid-type', '`tests` must be a list: got a mapping'],
    ['mode: x\ndescription: 5\n', 'invalid-type', '`description` must be a string: got number `5`'],
    ['mode: x\ntests:\n  - 5\n', 'invalid-type', '`tests[0]` must be a mapping: got number `5`'],
    [
      'mode: x\ntests:\n  - { tool: a, expect: deny, annotations: { readOnly: 1 } }\n',
      'invalid-type',
      '`tests[0].annotations.readOnly` must be a boolean: got number `1`',
    ],
    ['mode: x\noverride: [1]\n', 'invalid-type', '`override` must be a boolean: got a list'],
    ['mode: 5\n', 'invalid-type', '`mode` must be a string: got number `5`'],
  ])('%j → %s', (text, code, message) => {
    expect(findings(text).map((d) => [d.code, d.message])).toEqual([[code, message]]);
  });

  it('shortens long paths and values in messages', () => {
    const long = 'x'.repeat(120);
    const [d] = findings(`mode: x\ntools:\n  "${long}": { decision: deny, extra: 1 }\n`);
    expect(d!.message).toBe(`unknown key \`extra\` in \`tools.${'x'.repeat(71)}...\``);
  });
});
