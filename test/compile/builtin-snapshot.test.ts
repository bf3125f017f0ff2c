/**
 * The built-in snapshot's parts, on src/: a position tree answers `locate` and `keyRange` exactly as the parsed
 * document it was built from, for every path of many texts (existing or not); a snapshot is made only of a text
 * that loads cleanly, holding the very document and lint findings loading and linting produce; a snapshot file
 * is read only when its format, hash and shape are right. (The snapshot file of the build, that an edited plan
 * never uses it, and that outputs do not change with it, are tested on the build: test/cli/lint-snapshot.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { makeSnapshot } from '../../src/compile/builtin-snapshot-write.js';
import { readSnapshot, snapshotFileText } from '../../src/compile/builtin-snapshot.js';
import { lintPolicies } from '../../src/compile/lint.js';
import { BUILTIN_PLAN_PATH, loadPolicyText } from '../../src/compile/load.js';
import { parsePolicyText, positionTree } from '../../src/compile/parse.js';
import { treeLocator } from '../../src/compile/position-tree.js';
import type { JsonPath } from '../../src/compile/types.js';
import { corpusTexts } from './lint-corpus.js';

const ROOT = join(import.meta.dirname, '../..');
const planText = readFileSync(BUILTIN_PLAN_PATH, 'utf8');

/** Every path of the data, and around each: a missing key, a missing index, a step past a leaf, odd segments. */
function pathsOf(data: unknown): JsonPath[] {
  const out: JsonPath[] = [[], ['nope'], [0]];
  const walk = (value: unknown, path: JsonPath): void => {
    out.push(path, [...path, 'missing key'], [...path, 999], [...path, 0], [...path, '0'], [...path, -1]);
    out.push([...path, 'x', 'y']);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        walk(v, [...path, k]);
        if (/^\d+$/.test(k)) out.push([...path, Number(k)]);
      }
    }
  };
  walk(data, []);
  return out;
}

/** Texts with every shape a tree must carry: empty values, flow pairs, aliases, odd keys, big mappings. */
const SHAPES = [
  'mode: plan\ntools:\n',
  'mode: plan\ntools:\n  read:\n  write: allow\n',
  'a: [x, y: 1, {b: }]\nc: &A {d: 1}\ne: *A\n',
  '? [complex, key]\n: value\nplain: 1\n',
  '1: one\ntrue: yes\nnull: nothing\n"2": two\n~: tilde\n',
  '- a\n-\n- - nested\n  - [ ]\n- {}\n',
  `big:\n${Array.from({ length: 40 }, (_, i) => `  k${i}: ${i % 3 === 0 ? '' : `v${i}`}`).join('\n')}\n`,
  `big:\n${Array.from({ length: 20 }, (_, i) => `  k${i % 18}: v${i}`).join('\n')}\n`,
  '',
  '# only a comment\n',
  'scalar at the top',
  '{"mode": "plan", "tools": {"read": "allow", "bash": {"decision": "ask"}}}',
];

function texts(): { name: string; text: string }[] {
  const examples = readdirSync(join(ROOT, 'policies/examples')).map((f) => ({
    name: f,
    text: readFileSync(join(ROOT, 'policies/examples', f), 'utf8'),
  }));
  const corpus = corpusTexts(3, 30, 3).map((t) => ({ name: t.file, text: t.text }));
  return [
    { name: 'plan.yaml', text: planText },
    ...examples,
    ...corpus,
    ...SHAPES.map((text, i) => ({ name: `shape ${i}`, text })),
  ];
}

describe('a position tree', () => {
  it.each(texts())('answers every lookup of $name as its parsed document does', ({ text }) => {
    const parsed = parsePolicyText(text, null, { syntax: 'yaml' });
    const tree = treeLocator(JSON.parse(JSON.stringify(positionTree(text))));
    const paths = pathsOf(parsed.data);
    expect(paths.length).toBeGreaterThan(2);
    for (const path of paths) {
      expect({ path, range: tree.locate(path) }).toEqual({ path, range: parsed.locate(path) });
      expect({ path, key: tree.keyRange(path) }).toEqual({ path, key: parsed.keyRange(path) });
    }
  });

  it('gives a fresh range each time, as a parse does', () => {
    const tree = treeLocator(positionTree(planText));
    const a = tree.locate(['tools'])!;
    a.start.line = -1;
    expect(tree.locate(['tools'])!.start.line).toBeGreaterThan(0);
  });
});

describe('a snapshot', () => {
  it('holds the built-in plan as loading and linting it give it', () => {
    const snapshot = makeSnapshot(planText)!;
    expect(snapshot.text).toBe(planText);
    const loaded = loadPolicyText(planText, BUILTIN_PLAN_PATH);
    expect(loaded.diagnostics).toEqual([]);
    expect(snapshot.document).toEqual(loaded.documents[0]!.document);
    expect(snapshot.findings).toEqual(lintPolicies(loaded));
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('holds the findings of a plan that has some, linted as the built-in plan', () => {
    const text = planText.replace(/^ {2}list: allow$/m, '  list: allow\n  "rea*": allow');
    const snapshot = makeSnapshot(text)!;
    const findings = lintPolicies(loadPolicyText(text, BUILTIN_PLAN_PATH));
    expect(findings.length).toBeGreaterThan(0);
    expect(snapshot.findings).toEqual(findings);
  });

  it('holds no findings when one names the path of the built-in plan (it differs once installed)', () => {
    const text = `${planText}  - { tool: write, expect: allow }\n`;
    const findings = lintPolicies(loadPolicyText(text, BUILTIN_PLAN_PATH));
    expect(findings.some((d) => d.help?.includes(BUILTIN_PLAN_PATH))).toBe(true);
    expect(makeSnapshot(text)).toMatchObject({ text, findings: null });
  });

  it('is not made of a text with any diagnostic, or one that is not a policy', () => {
    expect(makeSnapshot('mode: plan\ntools:\n  read: allow\n  read: deny\n')).toBeUndefined();
    expect(makeSnapshot('mode: plan\ntools:\n  read: maybe\n')).toBeUndefined();
    expect(makeSnapshot('mode: [\n')).toBeUndefined();
    expect(makeSnapshot('')).toBeUndefined();
    expect(makeSnapshot('mode: plan\ntools:\n  read: allow\n')).toBeDefined();
  });
});

describe('a snapshot file', () => {
  const body = makeSnapshot(planText)!;
  const raw = snapshotFileText(body);
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  /** The file with its parts replaced, under a hash that matches them. */
  const rehashed = (parts: unknown[]) => {
    const rest = parts.map((p) => JSON.stringify(p)).join('\n');
    return `${raw.slice(0, raw.indexOf('\n')).replace(/"sha256":"\w+"/, `"sha256":"${sha(rest)}"`)}\n${rest}`;
  };

  it('is read back: its key, a fresh document that locates as the parse does, and its findings', () => {
    const read = readSnapshot(raw)!;
    expect(read.text).toBe(planText);
    const parsed = parsePolicyText(planText, 'plan.yaml');
    const a = read.document('plan.yaml')!;
    const b = read.document('plan.yaml')!;
    expect(a.file).toBe('plan.yaml');
    expect(a.document).toEqual(body.document);
    expect(a.document).not.toBe(b.document);
    for (const path of pathsOf(parsed.data)) {
      expect({ path, range: a.locate(path) }).toEqual({ path, range: parsed.locate(path) });
      expect({ path, key: a.keyRange?.(path) }).toEqual({ path, key: parsed.keyRange(path) });
    }
    expect(read.findings('x.yaml')).toEqual(body.findings!.map((d) => ({ ...d, file: 'x.yaml' })));
    expect(readSnapshot(snapshotFileText({ ...body, findings: null }))!.findings('x.yaml')).toBeUndefined();
  });

  it('names the findings it holds as asked', () => {
    const text = planText.replace(/^ {2}list: allow$/m, '  list: allow\n  "rea*": allow');
    const withFindings = makeSnapshot(text)!;
    expect(withFindings.findings!.length).toBeGreaterThan(0);
    const found = readSnapshot(snapshotFileText(withFindings))!.findings('here.yaml')!;
    expect(found).toEqual(withFindings.findings!.map((d) => ({ ...d, file: 'here.yaml' })));
  });

  it.each([
    ['cut short', raw.slice(0, -1)],
    ['a byte of its document changed', raw.replace('"mode":"plan"', '"mode":"plam"')],
    ['its hash changed', raw.replace(/"sha256":"./, '"sha256":"_')],
    ['another format', raw.replace(/^\{"format":\d+/, '{"format":1')],
    ['no header', raw.slice(raw.indexOf('\n') + 1)],
    ['empty', ''],
    ['no parts', raw.slice(0, raw.indexOf('\n') + 1)],
    ['a part too many', rehashed([body.text, body.document, body.tree, body.findings, null])],
    ['a part too few', rehashed([body.text, body.document, body.tree])],
    ['a key that is no text', rehashed([1, body.document, body.tree, body.findings])],
  ])('is not used when %s', (_, damaged) => {
    expect(damaged).not.toBe(raw);
    expect(readSnapshot(damaged)).toBeNull();
  });

  it.each([
    ['a document that is a list', [body.text, [], body.tree, body.findings]],
    ['no document', [body.text, null, body.tree, body.findings]],
    ['a tree that is no node', [body.text, body.document, 'x', body.findings]],
    ['a tree that is a list', [body.text, body.document, [], body.findings]],
  ])('answers no document when it has %s, under a matching hash', (_, parts) => {
    expect(readSnapshot(rehashed(parts))!.document('plan.yaml')).toBeUndefined();
  });

  it.each([
    ['findings that are no list', [body.text, body.document, body.tree, {}]],
    ['a finding that is no object', [body.text, body.document, body.tree, [1]]],
  ])('answers no findings when it has %s, under a matching hash', (_, parts) => {
    const read = readSnapshot(rehashed(parts))!;
    expect(read.findings('plan.yaml')).toBeUndefined();
    expect(read.document('plan.yaml')).toBeDefined();
  });
});
