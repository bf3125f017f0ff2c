/**
 * The public API stays small enough to hold in one's head: each package entry point exports at most about thirty
 * names (the API report, docs/reference/api.md, lists them and the freshness test keeps it current), and every
 * entry point that package.json names is in the report.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiSurfaceOf, entryPoints } from '../../scripts/docs/api.mjs';

const root = resolve(import.meta.dirname, '../..');
const surface = apiSurfaceOf(root);

describe('the public API', () => {
  it('reports every code entry point of package.json', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
    const codeEntries = Object.entries(pkg.exports).filter(([, t]) => typeof t !== 'string').length;
    expect(entryPoints(root)).toHaveLength(codeEntries);
    expect(surface.map((e) => e.subpath)).toEqual([
      'dsh-mode',
      'dsh-mode/compile',
      'dsh-mode/engine',
      'dsh-mode/engine/plugin',
    ]);
  });

  it.each(surface.map((e) => [e.subpath, e.names.map((n) => n.name)] as const))(
    '%s exports at most 30 names',
    (_subpath, names) => {
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThanOrEqual(30);
    },
  );

  it('exports no CLI output shapes and no index internals', () => {
    const all = surface.flatMap((e) => e.names.map((n) => n.name));
    for (const internal of [
      'JsonLintOutput',
      'JsonCheckOutput',
      'LintReport',
      'PrefixIndex',
      'INERT_SETTINGS',
    ]) {
      expect(all).not.toContain(internal);
    }
  });
});
