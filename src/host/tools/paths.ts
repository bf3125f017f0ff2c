/**
 * Workspace confinement for the file tools. A path is resolved against the workspace root and refused when it
 * leaves it: `..` segments that climb out, absolute paths elsewhere, and symlinks whose target is outside
 * (checked with realpath on the path, or on its deepest existing ancestor for a path that does not exist yet).
 * @module
 */
import { readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** The longest path the file tools accept (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** A path inside the workspace: `absolute` for fs calls, `display` relative to the root for messages. */
export interface WorkspacePath {
  absolute: string;
  display: string;
}

function inside(root: string, target: string): boolean {
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
  const realRoot = realish(root);
  if (!inside(realRoot, realish(absolute))) {
    throw new Error(`\`${path}\` leaves the workspace through a symbolic link`);
  }
  return { absolute, display: relative(root, absolute) || '.' };
}

/** Rewrites a missing-file error as one naming the workspace path (not the absolute one). */
export function explainMissing(error: unknown, display: string): never {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') throw new Error(`\`${display}\` does not exist`);
  if (code === 'ENOTDIR') throw new Error(`\`${display}\` is not a folder`);
  throw error;
}
