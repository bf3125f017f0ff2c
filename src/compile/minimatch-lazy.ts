/**
 * minimatch, loaded on first use: most policies (the built-in plan among them) have no class globs and no path
 * patterns, so `dsh-mode lint` and `check` start without minimatch and its dependencies. minimatch ships a
 * CommonJS build, so a synchronous `require` can load it where the matcher is built.
 * @module
 */
import { createRequire } from 'node:module';
import type { Minimatch, MinimatchOptions } from 'minimatch';

let constructor: typeof Minimatch | undefined;

/**
 * `new Minimatch(pattern, options)`, loading minimatch the first time.
 * @returns the matcher
 */
export function newMinimatch(pattern: string, options: MinimatchOptions): Minimatch {
  constructor ??= (createRequire(import.meta.url)('minimatch') as typeof import('minimatch')).Minimatch;
  return new constructor(pattern, options);
}
