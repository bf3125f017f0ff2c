/**
 * Review finding: DESIGN.md section 2 says `file` is reported as given; for a folder, load.ts promises "the folder
 * as given joined with the entry name". `path.join` normalised the folder, so `./pol` was reported as `pol/a.yaml`
 * and `pol/../pol` as `pol/a.yaml`: not what the user gave.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/compile.js';
import { loadPolicySources } from '../../src/compile/load.js';

describe('review: folder entries are reported as the folder was given', () => {
  const cwd = process.cwd();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-review-load-'));
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
