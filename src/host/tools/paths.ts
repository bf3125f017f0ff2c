/**
 * Workspace confinement for the file tools. A path is resolved against the workspace root and refused when it
 * leaves it: `..` segments that climb out, absolute paths elsewhere, and symlinks whose target is outside
 * (checked with realpath on the path, or on its deepest existing ancestor for a path that does not exist yet).
 * @module
 */
import { readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { FileRefusedError } from '../../files/read-file.js';
import type { Tool } from '../types.js';

/** The longest path the file tools accept (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** A path inside the workspace: `absolute` for fs calls, `display` relative to the root for messages. */
export interface WorkspacePath {
  absolute: string;
  display: string;
}

/** True when `target` is `root` or below it (both absolute, already resolved). */
export function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The realpath of `target`, or of its deepest existing ancestor joined with the rest. */
function realish(target: string): string {
  let current = target;
  const rest: string[] = [];
  let hops = 0;
  for (;;) {
    try {
      return resolve(realpathSync(current), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      // A dangling symbolic link (realpath fails on it): follow it by hand, since a write through it creates its
      // target, which may lie outside the workspace.
      const link = linkTarget(current);
      if (link !== undefined) {
        if (++hops > 40) throw new Error('too many levels of symbolic links');
        current = resolve(dirname(current), link);
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return target;
      rest.unshift(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

/** The target of a symbolic link, or undefined when `path` is not one. */
function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Resolves `path` inside `workspace`.
 * @throws an error naming the path when it leaves the workspace (directly or through a symlink)
 */
export function confine(workspace: string, path: string): WorkspacePath {
  if (typeof path !== 'string' || path === '') throw new Error('a path is required');
  if (path.includes('\u0000')) throw new Error('a path must not contain NUL');
  // Linux's PATH_MAX: longer paths fail in realpath with an error that quotes them whole (a 10 MB path would come
  // back to the model as a 10 MB error).
  if (path.length > MAX_PATH_LENGTH) {
    throw new Error(`a path of ${path.length} characters is longer than the limit of ${MAX_PATH_LENGTH}`);
  }
  const root = resolve(workspace);
  const absolute = resolve(root, path);
  if (!inside(root, absolute)) throw new Error(`\`${path}\` is outside the workspace`);
  const display = relative(root, absolute) || '.';
  let escapes: boolean;
  try {
    escapes = !inside(realish(root), realish(absolute));
  } catch (error) {
    // realpath's own errors (ELOOP, ENAMETOOLONG, EACCES) quote the absolute path: name the workspace path.
    return explainFsError(error, display);
  }
  if (escapes) throw new Error(`\`${path}\` leaves the workspace through a symbolic link`);
  return { absolute, display };
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
