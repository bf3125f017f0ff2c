// loadPolicySources on real files in temp folders: load order, folders, de-duplication, refusal.
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_PLAN_PATH, compilePolicies, loadPolicySources } from '../../../src/compile/api.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dsh-load-'));
  await mkdir(join(dir, 'pol'));
  await mkdir(join(dir, 'pol', 'nested'));
  await writeFile(join(dir, 'pol', 'b.yml'), 'mode: b\ndefault: allow\n');
  await writeFile(join(dir, 'pol', 'a.yaml'), 'mode: a\ndefault: allow\n');
  await writeFile(join(dir, 'pol', 'c.json'), '{"mode": "c", "default": "ask"}');
  await writeFile(join(dir, 'pol', 'notes.txt'), 'not a policy');
  await writeFile(join(dir, 'pol', 'nested', 'd.yaml'), 'mode: d\n');
  await writeFile(join(dir, 'bad.yaml'), 'mode: bad\ntools:\n  a: alow\n  b: allow\ntool: {}\n');
  await writeFile(join(dir, 'narrow.yaml'), 'mode: plan\ntools:\n  read: deny\n');
  await symlink(join(dir, 'pol', 'a.yaml'), join(dir, 'alias.yaml'));
});

describe('loadPolicySources', () => {
  it('loads the built-in plan first, then paths in order, folders sorted and not recursive', async () => {
    const r = await loadPolicySources([join(dir, 'narrow.yaml'), join(dir, 'pol')]);
    expect(r.diagnostics).toEqual([]);
    expect(r.files).toEqual([
      BUILTIN_PLAN_PATH,
      join(dir, 'narrow.yaml'),
      join(dir, 'pol', 'a.yaml'),
      join(dir, 'pol', 'b.yml'),
      join(dir, 'pol', 'c.json'),
    ]);
    expect(r.documents.map((d) => d.document.mode)).toEqual(['plan', 'plan', 'a', 'b', 'c']);
    const plan = compilePolicies(r.documents).get('plan')!;
    expect(plan.decide('read')).toMatchObject({ decision: 'deny', rule: { file: join(dir, 'narrow.yaml') } });
  });

  it('skips the built-in with builtin: false', async () => {
    const r = await loadPolicySources([join(dir, 'pol', 'a.yaml')], { builtin: false });
    expect(r.files).toEqual([join(dir, 'pol', 'a.yaml')]);
  });

  it('never loads the same real file twice, and reports the path as given', async () => {
    const cwd = process.cwd();
    const given = relative(cwd, join(dir, 'pol', 'a.yaml'));
    const r = await loadPolicySources([given, join(dir, 'alias.yaml'), join(dir, 'pol'), BUILTIN_PLAN_PATH]);
    expect(r.files).toEqual([
      BUILTIN_PLAN_PATH,
      given,
      join(dir, 'pol', 'b.yml'),
      join(dir, 'pol', 'c.json'),
    ]);
    expect(r.documents[1]!.file).toBe(given);
  });

  it('reports a missing path as an io error and goes on', async () => {
    const r = await loadPolicySources([join(dir, 'missing.yaml'), join(dir, 'pol', 'a.yaml')], {
      builtin: false,
    });
    expect(r.diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'io',
        join(dir, 'missing.yaml'),
        `cannot read \`${join(dir, 'missing.yaml')}\`: no such file or folder`,
      ],
    ]);
    expect(r.documents).toHaveLength(1);
  });

  it('refuses a file with errors but reports each of its findings', async () => {
    const r = await loadPolicySources([join(dir, 'bad.yaml'), join(dir, 'pol', 'a.yaml')], {
      builtin: false,
    });
    expect(r.documents.map((d) => d.document.mode)).toEqual(['a']);
    expect(r.files).toEqual([join(dir, 'bad.yaml'), join(dir, 'pol', 'a.yaml')]);
    expect(r.diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([
      ['invalid-decision', 3],
      ['unknown-key', 5],
    ]);
  });

  it('resolves the built-in plan from the package root', () => {
    expect(BUILTIN_PLAN_PATH).toBe(join(process.cwd(), 'policies', 'plan.yaml'));
  });
});

describe('loadPolicySources: unreadable entries', () => {
  it('reports a dangling symlink as an io error', async () => {
    const link = join(dir, 'dangling.yaml');
    await symlink(join(dir, 'nowhere.yaml'), link);
    const r = await loadPolicySources([link], { builtin: false });
    expect(r.diagnostics.map((x) => [x.code, x.file])).toEqual([['io', link]]);
    expect(r.files).toEqual([]);
  });

  it('reports a folder that cannot be read as a file as an io error', async () => {
    const r = await loadPolicySources([join(dir, 'pol', 'nested', 'd.yaml', 'x')], { builtin: false });
    expect(r.diagnostics.map((x) => x.code)).toEqual(['io']);
  });
});

describe('loadPolicySources: folder entries', () => {
  it('reports a dangling symlink inside a folder as an io error and loads the rest', async () => {
    const folder = join(dir, 'with-dangling');
    await mkdir(folder);
    await writeFile(join(folder, 'a.yaml'), 'mode: a\n');
    await symlink(join(folder, 'gone.yaml'), join(folder, 'b.yaml'));
    const r = await loadPolicySources([folder], { builtin: false });
    expect(r.documents.map((d) => d.file)).toEqual([join(folder, 'a.yaml')]);
    expect(r.diagnostics.map((x) => [x.code, x.file])).toEqual([['io', join(folder, 'b.yaml')]]);
  });
});
