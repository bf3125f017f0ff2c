/**
 * Packaging: what a user meets before running anything. Every package the lockfile installs accepts the Node
 * versions the README promises (npm warns `EBADENGINE` otherwise); the package runs no script in a project that
 * installs it (npm asks that project to approve a dependency's install scripts, `prepare` included); the package
 * build writes no source maps (they would point at `src/`, which is not shipped). The tarball itself is installed
 * and used in test/docs/install.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measured } from './config.js';

const root = resolve(import.meta.dirname, '../..');

type Version = [number, number, number];

function parseVersion(text: string): { version: Version; parts: number } {
  const nums = text
    .replace(/^v/, '')
    .split('.')
    .filter((p) => p !== '' && p !== 'x' && p !== '*');
  const [a = 0, b = 0, c = 0] = nums.map(Number);
  return { version: [a, b, c], parts: nums.length };
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of a node-semver range (`>=20.11`, `^20.19.0`, `20`, `< 3`) against a version. */
function satisfiesComparator(v: Version, comparator: string): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*v?([\d.x*]+)$/.exec(comparator.trim());
  if (!m) throw new Error(`unsupported engines comparator: ${comparator}`);
  const [, op = '', text = ''] = m;
  const { version: w, parts } = parseVersion(text);
  const c = compare(v, w);
  if (op === '>=') return c >= 0;
  if (op === '>') return c > 0;
  if (op === '<=') return c <= 0;
  if (op === '<') return c < 0;
  if (op === '^' || op === '~' || op === '' || op === '=') {
    if (c < 0) return false;
    if ((op === '' || op === '=') && parts === 3) return c === 0;
    // The upper bound: the next major (`^`, or a bare major), else the next minor.
    const major = op === '^' ? w[0] !== 0 || parts < 2 : parts < 2;
    return major ? v[0] === w[0] : v[0] === w[0] && v[1] === w[1];
  }
  return false;
}

/** True when a version satisfies a node-semver range of `||`-joined, space-separated comparators. */
function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version).version;
  return range.split('||').some((alt) =>
    alt
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '')
      .every((c) => satisfiesComparator(v, c)),
  );
}

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  engines?: { node?: string };
}

describe('packaging', () => {
  it('satisfies() reads the engines ranges npm packages declare', () => {
    expect(satisfies('20.11.0', '>=20.11')).toBe(true);
    expect(satisfies('20.10.9', '>=20.11')).toBe(false);
    expect(satisfies('20.11.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('21.0.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.20.2', '18 || 20 || >=22')).toBe(true);
    expect(satisfies('21.1.0', '18 || 20 || >=22')).toBe(false);
    expect(satisfies('20.19.0', '>= 16')).toBe(true);
    expect(satisfies('20.19.0', '>=22.13.0')).toBe(false);
    expect(satisfies('20.19.0', '^10 || ^12 || >=14')).toBe(true);
  });

  it('every package npm ci installs accepts the Node versions the README names', async () => {
    await measured('install', 'packaging: engines of the locked packages', null, async () => {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        engines: { node: string };
      };
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const users = /^Node\.js (\d+\.\d+) or newer/m.exec(readme)?.[1];
      const contributors = /working on this checkout \([^)]*\) needs (\d+\.\d+) or newer/.exec(readme)?.[1];
      expect(users, 'the README names the Node version for users').toBeDefined();
      expect(contributors, 'the README names the Node version for contributors').toBeDefined();
      expect(manifest.engines.node).toBe(`>=${users}`);
      const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, LockEntry>;
      };
      const refused: string[] = [];
      let runs = 0;
      for (const [path, entry] of Object.entries(lock.packages)) {
        const range = entry.engines?.node;
        // Optional packages are platform builds npm skips where they do not fit.
        if (path === '' || !range || entry.optional) continue;
        runs++;
        const minimum = entry.dev || entry.devOptional ? contributors! : users!;
        if (!satisfies(`${minimum}.0`, range)) refused.push(`${path} wants node ${range}, not ${minimum}`);
      }
      expect(refused).toEqual([]);
      return { runs, violations: refused.length, notes: `users ${users}, contributors ${contributors}` };
    });
  });

  it('runs no script in a project that installs it', async () => {
    await measured('install', 'packaging: no install-time scripts', null, async () => {
      const { scripts = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      const found = ['preinstall', 'install', 'postinstall', 'prepare'].filter((e) => e in scripts);
      expect(found).toEqual([]);
      return { runs: 1, violations: found.length };
    });
  });

  it('builds the package without source maps', async () => {
    await measured('install', 'packaging: no source maps in the package build', null, async () => {
      const shown = execFileSync(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--showConfig'],
        { cwd: root, encoding: 'utf8' },
      );
      const { compilerOptions } = JSON.parse(shown) as {
        compilerOptions: { sourceMap?: boolean; declarationMap?: boolean; inlineSourceMap?: boolean };
      };
      const on = (['sourceMap', 'declarationMap', 'inlineSourceMap'] as const).filter(
        (k) => compilerOptions[k] === true,
      );
      expect(on).toEqual([]);
      return { runs: 1, violations: on.length };
    });
  });
});
