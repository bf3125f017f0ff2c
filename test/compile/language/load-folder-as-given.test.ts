/**
 * A policy's `file` is reported as the user gave it; for a folder, the folder as given joined with the entry name
 * (load.ts). `path.join` would normalise the folder, reporting `./pol` and `pol/../pol` both as `pol/a.yaml`: not
 * what the user gave.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies } from '../../../src/compile/decide/compile.js';
import { loadPolicySources } from '../../../src/compile/language/load.js';

describe('folder entries are reported as the folder was given', () => {
  const cwd = process.cwd();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-load-as-given-'));
    mkdirSync(join(dir, 'pol'));
    writeFileSync(join(dir, 'pol', 'a.yaml'), 'mode: a\ntools:\n  read: allow\n');
    process.chdir(dir);
  });
  afterAll(() => process.chdir(cwd));

  for (const given of [`.${sep}pol`, `.${sep}pol${sep}`, `pol${sep}..${sep}pol`]) {
    it(JSON.stringify(given), async () => {
      const r = await loadPolicySources([given], { builtin: false });
      const expected = given.endsWith(sep) ? `${given}a.yaml` : `${given}${sep}a.yaml`;
      expect(r.files).toEqual([expected]);
      expect(compilePolicies(r.documents).get('a')!.decide('read').rule.file).toBe(expected);
    });
  }
});
