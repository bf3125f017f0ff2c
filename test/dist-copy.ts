/**
 * A private copy of `dist/` (which the global setup has just built) in a fresh folder under `node_modules/.cache/`,
 * for tests that run child processes on the built host and engine (crash, journal, example), with `policies/` copied beside it so the built-in plan
 * policy resolves. A copy, not `dist/` itself: other runs may rebuild `dist/` while these tests work, and a child
 * must not import a half-written module. A copy, not a build of its own: tsc is the slowest step of the suite, and
 * `dist/` already holds the same modules from the same sources.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/** Copies; returns the folder holding `host/index.js` and `engine/index.js`. */
export function copyDist(): string {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'host/index.js')) || !existsSync(join(dist, 'engine/index.js')))
    throw new Error('dist/ has no host or engine build: run `npm run build` (the global setup does)');
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const base = mkdtempSync(join(cache, 'dsh-dist-'));
  const out = join(base, 'dist');
  cpSync(join(root, 'policies'), join(base, 'policies'), { recursive: true });
  cpSync(dist, out, { recursive: true, filter: (path) => !path.endsWith('.map') });
  return out;
}
