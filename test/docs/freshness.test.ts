/**
 * The committed reference pages equal a fresh generation (`scripts/docs.mjs` over `dist/`, built by the global
 * setup), so a schema, rule, event, service or flag cannot change without its page: CI (`npm test`) fails with the
 * command that fixes it. Also: generating twice gives the same bytes, and the README's command summary is each
 * command's usage as `--help` prints it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateReference, REFERENCE_DIR } from '../../scripts/docs/generate.mjs';
import { withReadmeSummary } from '../../scripts/docs/cli.mjs';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, REFERENCE_DIR);
let pages: Map<string, string>;

beforeAll(async () => {
  pages = await generateReference(root);
}, 120_000);

describe('docs/reference', () => {
  it('has exactly the generated pages', () => {
    const committed = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.md'))
          .sort()
      : [];
    expect(committed, `${REFERENCE_DIR} differs from the generated set: run \`npm run docs\``).toEqual([
      ...pages.keys(),
    ]);
  });

  it('is up to date with the sources (run `npm run docs` when this fails)', () => {
    const stale = [...pages]
      .filter(
        ([name, text]) => !existsSync(join(dir, name)) || readFileSync(join(dir, name), 'utf8') !== text,
      )
      .map(([name]) => `${REFERENCE_DIR}/${name}`);
    expect(stale, `stale reference pages: run \`npm run docs\` and commit the result`).toEqual([]);
  });

  it('generates the same bytes twice', async () => {
    const again = await generateReference(root);
    expect([...again]).toEqual([...pages]);
  }, 120_000);

  it('mentions no absolute path of this machine', () => {
    for (const [name, text] of pages) expect(text.includes(root), name).toBe(false);
  });
});

describe("README.md's command summary", () => {
  it("is every command's usage, as `--help` prints it (run `npm run docs` when this fails)", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(await withReadmeSummary(readme), 'stale README command summary: run `npm run docs`').toBe(readme);
    // The summary is there, one line per command.
    const { commands } = await import('../../src/cli/commands/index.js');
    for (const name of Object.keys(commands)) expect(readme).toMatch(new RegExp(`^dsh-mode ${name}\\b`, 'm'));
  });
});
