/**
 * Finding a program on a `PATH`, the way `execvp` would: the first absolute entry holding an executable regular
 * file of that name. The sandbox looks up `bwrap` and `prlimit` this way so that a missing one is a refusal with
 * a reason, not a spawn error.
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The absolute path of `name` on `path`, or undefined.
 * @param name a bare program name
 * @param path a colon-separated search path (relative entries are skipped)
 */
export function findProgram(name: string, path: string | undefined): string | undefined {
  for (const folder of (path ?? '').split(':')) {
    if (!folder.startsWith('/')) continue;
    const file = join(folder, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here: the next entry
    }
  }
  return undefined;
}
