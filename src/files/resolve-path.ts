/**
 * Where a path leads, the way the kernel will walk it: the one resolution that the mode gate decides on and the
 * file tools open.
 *
 * The path is walked left to right from the workspace's real root (or from `/` for an absolute path). A symbolic
 * link is replaced by its target, read relative to the link's own folder, and the walk goes on from there, so a
 * `..` after a link leaves the link target's parent, not the folder the link sits in. `.` and repeated slashes are
 * skipped. At most {@link MAX_LINKS} links are followed (Linux's limit; ELOOP beyond it).
 *
 * Once a component does not exist, the rest of the path is appended to it as names that a write would create.
 * A `..` after such a component is refused: the kernel fails it (`open("missing/../x")` is ENOENT), and a write
 * that created the missing folder just to leave it would land wherever the links after it lead, which the path
 * as written does not show. Every other case the kernel fails is refused too, each with a reason: a component
 * that is not a folder but has more after it (ENOTDIR), a link that cannot be read, a component that cannot be
 * looked at (EACCES), a path longer than {@link MAX_PATH_LENGTH} or containing NUL, a workspace that does not
 * exist.
 *
 * A resolved path records the identity (device and inode) of the last component that exists: the file itself,
 * or the folder a new file would be created in. The file tools compare it with what they open, so a path that
 * changed between the check and the open is refused rather than followed. Reasons name paths relative to the
 * workspace (`../x` next to it, absolute only far from it), never the workspace's own location.
 * @module
 */
import { lstatSync, readlinkSync, realpathSync, type BigIntStats } from 'node:fs';
import { posix } from 'node:path';

/** The most symbolic links one resolution follows (Linux's MAXSYMLINKS). */
export const MAX_LINKS = 40;
/** The longest path accepted (Linux's PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** A path resolved inside or outside the workspace. */
export interface ResolvedWorkspacePath {
  readonly ok: true;
  /** The workspace root, absolute, as given (links not followed). */
  readonly root: string;
  /** The workspace root's real path: where relative walks start, and what `relative` is relative to. */
  readonly realRoot: string;
  /** The path as written, normalised lexically against `root` (`..` removes the name before it). */
  readonly written: string;
  /** Where the kernel lands: absolute, every link of the existing part replaced, the missing rest appended. */
  readonly target: string;
  /** `target` relative to `realRoot` (`.` for the root itself); absent when the target is outside. */
  readonly relative?: string;
  /** How many trailing components of `target` did not exist (0: the whole path exists). */
  readonly missing: number;
  /** `dev:ino` of the last existing component of `target`: the file itself when `missing` is 0. */
  readonly anchor: string;
  /** Whether that last existing component is a folder. */
  readonly anchorIsFolder: boolean;
  /** Whether the walk ended on `/` or `/.` (the path names a folder: a write cannot create a file there). */
  readonly namesFolder: boolean;
}

/** A path that cannot be resolved safely. */
export interface UnresolvedWorkspacePath {
  readonly ok: false;
  /** Why, as a phrase that follows the path: "goes through `docs/nope`, which does not exist, and then `..`". */
  readonly reason: string;
}

/** What {@link resolveWorkspacePath} answers. */
export type WorkspacePathResolution = ResolvedWorkspacePath | UnresolvedWorkspacePath;

/**
 * The identity of a file as {@link ResolvedWorkspacePath.anchor} records it.
 * @param stats stats read with `{bigint: true}` (inode numbers exceed 2^53 on some filesystems); typed by shape,
 *   so the public declarations that name this module need no Node types
 */
export function identityOf(stats: { readonly dev: bigint; readonly ino: bigint }): string {
  return `${stats.dev}:${stats.ino}`;
}

/**
 * Resolves `path` the way the kernel will (see the module header).
 * @param workspace the workspace root (absolute, or relative to the current folder)
 * @param path the path as the call wrote it: relative to the workspace, or absolute
 * @returns the resolution, or why it was refused
 */
export function resolveWorkspacePath(workspace: string, path: string): WorkspacePathResolution {
  if (typeof path !== 'string' || path === '') return refused('is empty: a path is required');
  if (path.includes('\0')) return refused('contains NUL');
  if (path.length > MAX_PATH_LENGTH)
    return refused(`is ${path.length} characters long, more than the limit of ${MAX_PATH_LENGTH}`);
  const root = posix.resolve(workspace);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return refused('cannot be resolved: the workspace folder does not exist');
  }
  // Inside the workspace and next to it, paths are shown relative to it (`../x`), so no reason tells the model
  // where the workspace is; elsewhere (`/etc/x`) absolute.
  const near = posix.dirname(realRoot);
  const show = (absolute: string): string => {
    const shown =
      relativeTo(near, absolute) === undefined ? absolute : posix.relative(realRoot, absolute) || '.';
    return `\`${shown}\``;
  };

  // The components still to walk, in order; a link's target is put in front of the rest.
  const pending = path.split('/');
  let current = path.startsWith('/') ? '/' : realRoot;
  let missing = 0;
  // The first component that does not exist, for the reason of a `..` after it.
  let absent = '';
  let links = 0;
  let last = folderStats(current);
  if (last === undefined) return refused(`cannot be resolved: ${show(current)} cannot be looked at`);
  let namesFolder = false;
  while (pending.length > 0) {
    const part = pending.shift()!;
    namesFolder = part === '' || part === '.' || part === '..';
    // A component that is not a folder ends the walk: `file/x`, `file/..`, `file/.` and `file/` all fail.
    if (missing === 0 && !last.isDirectory())
      return refused(`goes through ${show(current)}, which is not a folder`);
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (missing > 0)
        return refused(
          `goes through ${show(absent)}, which does not exist, and then \`..\`: write the path without \`..\``,
        );
      current = posix.dirname(current);
      const parent = folderStats(current);
      if (parent === undefined) return refused(`cannot be resolved: ${show(current)} cannot be looked at`);
      last = parent;
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    if (missing > 0) {
      current = next;
      missing++;
      continue;
    }
    let stats: BigIntStats | undefined;
    try {
      stats = lstatSync(next, { bigint: true, throwIfNoEntry: false });
    } catch (error) {
      return refused(`cannot be resolved: ${show(next)} ${fsReason(error)}`);
    }
    if (stats === undefined) {
      current = next;
      absent = next;
      missing = 1;
      continue;
    }
    if (stats.isSymbolicLink()) {
      if (++links > MAX_LINKS) return refused('has too many levels of symbolic links');
      let target: string;
      try {
        target = readlinkSync(next);
      } catch (error) {
        return refused(`cannot be resolved: the link ${show(next)} ${fsReason(error)}`);
      }
      if (target === '') return refused(`goes through the link ${show(next)}, which is empty`);
      pending.unshift(...target.split('/'));
      if (target.startsWith('/')) {
        current = '/';
        const top = folderStats(current);
        if (top === undefined) return refused('cannot be resolved: `/` cannot be looked at');
        last = top;
      }
      continue;
    }
    current = next;
    last = stats;
  }
  const relative = relativeTo(realRoot, current);
  return {
    ok: true,
    root,
    realRoot,
    written: posix.resolve(root, path),
    target: current,
    ...(relative !== undefined ? { relative } : {}),
    missing,
    anchor: identityOf(last),
    anchorIsFolder: last.isDirectory(),
    namesFolder,
  };
}

/**
 * The path of `absolute` relative to `root` (both absolute and normalised).
 * @returns `.` for the root itself, the relative path below it, undefined outside
 */
export function relativeTo(root: string, absolute: string): string | undefined {
  if (absolute === root) return '.';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : undefined;
}

/** The stats of a folder the walk stands in (the root, `/`, a parent), or undefined when it cannot be read. */
function folderStats(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function refused(reason: string): UnresolvedWorkspacePath {
  return { ok: false, reason };
}

function fsReason(error: unknown): string {
  switch ((error as NodeJS.ErrnoException)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'cannot be looked at: permission denied';
    case 'ENAMETOOLONG':
      return 'has a name that is too long';
    case 'ENOTDIR':
      return 'is below something that is not a folder';
    default:
      return `cannot be looked at (${(error as NodeJS.ErrnoException)?.code ?? 'unknown error'})`;
  }
}
