// The checked-in types generated from schema/*.json must match a fresh generation (`npm run gen:types`).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { generate } from '../../../scripts/gen-types.mjs';

describe('npm run gen:types', () => {
  it('the checked-in types are fresh', async () => {
    const fresh = (await generate()) as Record<string, string>;
    expect(Object.keys(fresh)).toEqual(['src/compile/language/schema-types.generated.ts']);
    for (const [file, text] of Object.entries(fresh)) {
      const checkedIn = await readFile(file, 'utf8');
      expect(checkedIn, `${file} is stale: run \`npm run gen:types\``).toBe(text);
    }
  });
});
