/**
 * Workspace confinement for the file tools. A path is resolved once, the way the kernel will walk it
 * (`resolveWorkspacePath`, src/files/resolve-path.ts, the resolution the mode gate decides on), and refused when
 * it cannot be resolved safely or leaves the workspace: written out of it (`..` that climbs out, an absolute path
 * elsewhere) or led out of it by a symbolic link. When the gate decided the call on this path, the tool takes the
 * gate's resolution (`ToolContext.paths`) instead of resolving again, so it opens exactly what was decided on
 * (open.ts refuses if that changed since).
 * @module
 */
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { FileRefusedError } from '../../files/read-file.js';
import {
  MAX_PATH_LENGTH,
  relativeTo,
  resolveWorkspacePath,
  type ResolvedWorkspacePath,
} from '../../files/resolve-path.js';
import type { CheckedPaths, Tool } from '../types.js';

export { MAX_PATH_LENGTH };

/** A path inside the workspace: where it resolved, and `display` (that target, relative to the root) for messages. */
export interface WorkspacePath {
  resolution: ResolvedWorkspacePath & { readonly relative: string };
  display: string;
}

/**
 * Resolves `path` inside `workspace`: the gate's resolution when `checked` has one for it, otherwise a fresh one.
 * @param checked the paths the gate decided the call on (`ToolContext.paths`)
 * @throws an error naming the path when it cannot be resolved safely or leaves the workspace (directly or through
 *   a symbolic link)
 */
export function confine(workspace: string, path: string, checked?: CheckedPaths): WorkspacePath {
  if (typeof path !== 'string' || path === '') throw new Error('a path is required');
  if (path.includes('\u0000')) throw new Error('a path must not contain NUL');
  // Linux's PATH_MAX: a longer path would come back whole in an error (a 10 MB path as a 10 MB error).
  if (path.length > MAX_PATH_LENGTH) {
    throw new Error(`a path of ${path.length} characters is longer than the limit of ${MAX_PATH_LENGTH}`);
  }
  const root = resolve(workspace);
  // Written out of the workspace: refused as such, whatever the walk would meet on the way.
  const written = relativeTo(root, resolve(root, path));
  if (written === undefined) throw new Error(`\`${path}\` is outside the workspace`);
  const given = checked?.get(path);
  // A resolution made against another root is not this call's: refused rather than re-resolved, since the tool
  // must open what the gate decided on.
  if (given !== undefined && given.root !== root)
    throw new Error(`\`${path}\` was checked against another workspace`);
  const resolution = given ?? resolveWorkspacePath(root, path);
  if (!resolution.ok) throw new Error(`\`${path}\` ${resolution.reason}`);
  if (resolution.relative === undefined)
    throw new Error(`\`${written}\` leaves the workspace through a symbolic link`);
  // Named where it resolved: a result says which file was read or written, links or not.
  return { resolution: resolution as WorkspacePath['resolution'], display: resolution.relative };
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'is not a folder',
  EISDIR: 'is a folder',
  ELOOP: 'has too many levels of symbolic links',
  ENAMETOOLONG: 'has a name that is too long',
  EACCES: 'cannot be accessed: permission denied',
  EPERM: 'cannot be accessed: operation not permitted',
  ENXIO: 'is not a regular file',
  ENODEV: 'is not a regular file',
  EROFS: 'is on a read-only file system',
  ENOSPC: 'cannot be written: no space left on the device',
  EDQUOT: 'cannot be written: disk quota exceeded',
  EBUSY: 'is busy',
  ETXTBSY: 'is busy',
  EMFILE: 'cannot be opened: too many open files',
  ENFILE: 'cannot be opened: too many open files',
  EFBIG: 'would be too large',
  EIO: 'cannot be read: input/output error',
};

/**
 * Rethrows a file-system error as one that names only the workspace path `display`: Node's own messages quote the
 * absolute path (and so the workspace's location) to the model. Errors without an errno code pass unchanged.
 */
export function explainFsError(error: unknown, display: string): never {
  if (error instanceof FileRefusedError) throw new Error(`\`${display}\` ${error.message}`);
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) throw error;
  throw new Error(`\`${display}\` ${FS_REASONS[code] ?? `cannot be used (${code})`}`);
}

/**
 * The last line of defence for the rule above: a tool whose error escaped {@link explainFsError} still never shows
 * the model the workspace's absolute location (or a `/proc/self/fd` name), which become `.` and `(file)`.
 */
export function withWorkspaceErrors<A>(tool: Tool<A>): Tool<A> {
  return {
    ...tool,
    async execute(args, context) {
      try {
        return await tool.execute(args, context);
      } catch (error) {
        throw new Error(
          scrubPaths(error instanceof Error ? error.message : String(error), context.workspace),
        );
      }
    },
  };
}

function scrubPaths(message: string, workspace: string): string {
  const roots = new Set([resolve(workspace)]);
  try {
    roots.add(realpathSync(workspace));
  } catch {
    // no real path to hide: the workspace is gone
  }
  let text = message;
  for (const root of [...roots].sort((a, b) => b.length - a.length)) {
    if (root !== sep) text = text.split(root).join('.');
  }
  return text.replace(/\/proc\/self\/fd\/\d+/g, '(file)');
}
