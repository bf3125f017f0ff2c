/**
 * Finding a program on a `PATH`, the way `execvp` would: the first absolute entry holding an executable regular
 * file of that name. The sandbox looks up `bwrap` and `bash` this way so that a missing one is a refusal with a
 * reason, not a spawn error.
 * @module
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The real path (links resolved) of `name` on `path`, or undefined.
 * @param name a bare program name
 * @param path a colon-separated search path (relative entries are skipped)
 * @param usable whether a file found, by its real path, may be used (default: any); one it refuses is passed over
 */
export function findProgram(
  name: string,
  path: string | undefined,
  usable: (file: string) => boolean = () => true,
): string | undefined {
  for (const folder of (path ?? '').split(':')) {
    if (!folder.startsWith('/')) continue;
    const file = join(folder, name);
    try {
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
      accessSync(file, constants.X_OK);
      const real = realpathSync(file);
      if (usable(real)) return real;
    } catch {
      // not here: the next entry
    }
  }
  return undefined;
}
