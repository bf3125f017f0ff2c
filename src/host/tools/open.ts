/**
 * Opening a workspace file exactly where its path resolved (see paths.ts), so that what the gate decided on, the
 * confinement check and the file operation are one file. The resolution names a target with no symbolic link in
 * it; this module opens that target and nothing else:
 *
 * - One walk, for every tool: from the workspace's real root, one component at a time, each opened relative to
 *   the folder opened before it (`/proc/self/fd/N/name`, in effect `openat`) with `O_NOFOLLOW`. A component that
 *   has become a link since the check fails to open; nothing is ever followed.
 * - The last component that existed at the check (the file, or the folder a new file goes in) must still be the
 *   same file: its device and inode are compared with those the resolution recorded. A path that changed between
 *   the check and the open (a folder renamed, a file replaced, a link swapped in) is refused.
 * - What did not exist at the check is created (`write` only): folders with `mkdir`, which never follows a link,
 *   and the file with `O_CREAT | O_EXCL | O_NOFOLLOW`. One that appeared meanwhile is opened no-follow, as it is
 *   at the checked place.
 * - Everything opens with `O_NONBLOCK` and is refused unless it is a regular file (or a folder where one is
 *   expected), so a FIFO or a device never blocks a call.
 *
 * Where `/proc/self/fd` does not exist (not Linux), the same walk runs on path strings: each component is still
 * opened with `O_NOFOLLOW` and the identity is still compared, but a folder swapped between two steps is caught
 * only by that comparison.
 * @module
 */
import { constants, existsSync, type BigIntStats, type Stats } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assertRegular } from '../../files/read-file.js';
import { identityOf } from '../../files/resolve-path.js';
import { explainFsError, type WorkspacePath } from './paths.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;
// Never wait on a FIFO or a device, and never make a terminal the controlling one.
const NO_WAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** An open file or folder of the workspace, with a path that reaches it (for listing and messages). */
export interface OpenNode {
  handle: FileHandle;
  stats: Stats;
  /** An absolute path that names the same file (its descriptor's path on Linux). */
  ref: string;
}

/** The path that names what `handle` is open on; `path` where the platform has no `/proc/self/fd`. */
function refOf(handle: FileHandle, path: string): string {
  return PROC_FD ? `/proc/self/fd/${handle.fd}` : path;
}

/** A child of an open folder, by name, resolved relative to the folder itself (not to a path). */
function childRef(dir: OpenNode, name: string): string {
  return join(dir.ref, name);
}

/** The error for a path that is no longer what was checked. */
function changed(display: string, what: string): Error {
  return new Error(
    `\`${display}\` changed since it was checked (${what}), so it was not opened; call the tool again`,
  );
}

/** An open error on a component that existed at the check: a link or a non-folder there now means it changed. */
function stepError(error: unknown, display: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK' || code === 'ENOTDIR')
    return changed(display, 'a symbolic link or another kind of file is in its place');
  if (code === 'ENOENT') return changed(display, 'a part of it was removed');
  return error as Error;
}

async function openNode(path: string, flags: number): Promise<OpenNode> {
  const handle = await open(path, flags);
  try {
    return { handle, stats: await handle.stat(), ref: refOf(handle, path) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** What the walk does at the end of the path. */
type Purpose =
  | { kind: 'read'; expect: 'file' | 'folder' | 'any' }
  | { kind: 'write' } // create or truncate-free open for writing, creating missing folders
  | { kind: 'edit' }; // an existing file, for reading and writing

/**
 * The one walk: opens `file`'s resolved target from the workspace's real root without following any link, and
 * checks the recorded identity. The caller closes the returned node.
 * @throws an error naming `file.display` (never the absolute path)
 */
async function walk(file: WorkspacePath, purpose: Purpose): Promise<OpenNode> {
  const { resolution, display } = file;
  const parts = resolution.relative === '.' ? [] : resolution.relative.split('/');
  // Components [0, existing) existed at the check; the anchor is the last of them (the root when none did).
  const existing = parts.length - resolution.missing;
  if (resolution.missing > 0 && purpose.kind !== 'write') return explainFsError(code('ENOENT'), display);
  // `new/` or a link to `x/.` names a folder: the kernel would not create a file there, and neither does write.
  if (purpose.kind !== 'read' && resolution.namesFolder) return explainFsError(code('EISDIR'), display);
  if (
    purpose.kind === 'read' &&
    purpose.expect === 'folder' &&
    resolution.missing === 0 &&
    !resolution.anchorIsFolder
  )
    return explainFsError(code('ENOTDIR'), display);
  let node: OpenNode;
  try {
    // The root is the deployment's, not the model's: it may be reached through a link.
    node = await openNode(resolution.realRoot, O_RDONLY | O_DIRECTORY | NO_WAIT);
  } catch (error) {
    return explainFsError(error, display);
  }
  try {
    // The anchor is compared as soon as it is open: nothing is created below a folder that is not the one checked.
    if (existing === 0) await sameAnchor(node, resolution.anchor, display);
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      const next =
        last && !(purpose.kind === 'read' && purpose.expect === 'folder')
          ? await openLast(node, parts[i]!, i >= existing, purpose, display)
          : await openFolder(node, parts[i]!, i >= existing, display);
      await node.handle.close();
      node = next;
      if (i === existing - 1) await sameAnchor(node, resolution.anchor, display);
    }
    if (purpose.kind === 'read' && purpose.expect === 'folder' && !node.stats.isDirectory())
      throw code('ENOTDIR');
    if (purpose.kind !== 'read' || purpose.expect === 'file' || !node.stats.isDirectory())
      assertRegular(node.stats);
    return node;
  } catch (error) {
    await node.handle.close();
    return explainFsError(error, display);
  }
}

/** Refuses `node` unless it is the file the resolution recorded (device and inode). */
async function sameAnchor(node: OpenNode, anchor: string, display: string): Promise<void> {
  const stats = (await node.handle.stat({ bigint: true })) as BigIntStats;
  if (identityOf(stats) !== anchor) throw changed(display, 'it is another file now');
}

/** An error with an errno code, worded by `explainFsError`. */
function code(errno: string): NodeJS.ErrnoException {
  return Object.assign(new Error(errno), { code: errno });
}

/** One folder of the walk, opened no-follow relative to its parent; created first when it was missing (`write`). */
async function openFolder(
  dir: OpenNode,
  name: string,
  wasMissing: boolean,
  display: string,
): Promise<OpenNode> {
  const path = childRef(dir, name);
  const flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | NO_WAIT;
  if (wasMissing) {
    // mkdir never follows a link in its last component; one made meanwhile by someone else is opened as it is.
    await mkdir(path).catch((error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    });
    return openNode(path, flags).catch((error) => {
      throw stepError(error, display);
    });
  }
  return openNode(path, flags).catch((error) => {
    throw stepError(error, display);
  });
}

/** The last component: read, or opened for writing (created when it was missing), never followed. */
async function openLast(
  dir: OpenNode,
  name: string,
  wasMissing: boolean,
  purpose: Purpose,
  display: string,
): Promise<OpenNode> {
  const path = childRef(dir, name);
  const access = purpose.kind === 'read' ? O_RDONLY : purpose.kind === 'edit' ? O_RDWR : O_WRONLY;
  const flags = access | NO_WAIT | O_NOFOLLOW;
  if (wasMissing) {
    try {
      return await openNode(path, flags | O_CREAT | O_EXCL);
    } catch (error) {
      // Created meanwhile at the checked place: opened as it is (O_NOFOLLOW still refuses a link there).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return openNode(path, flags).catch((error) => {
    throw stepError(error, display);
  });
}

/**
 * Opens a checked workspace path for reading.
 * @param expect `file` refuses anything but a regular file; `folder` anything but a folder; `any` takes both
 * @throws an error naming `file.display` (never the absolute path)
 */
export async function openForRead(file: WorkspacePath, expect: 'file' | 'folder' | 'any'): Promise<OpenNode> {
  return walk(file, { kind: 'read', expect });
}

/**
 * Opens a checked workspace file: `write` opens it for writing, creating missing parent folders and the file;
 * `edit` opens an existing file for reading and writing. The returned handle is on a regular file inside the
 * workspace, positioned at 0, not truncated.
 * @throws an error naming `file.display` (never the absolute path)
 */
export async function openForWrite(file: WorkspacePath, mode: 'write' | 'edit'): Promise<FileHandle> {
  return (await walk(file, { kind: mode })).handle;
}

/**
 * Opens a child of an open folder without following a link (grep's walk): undefined for a symbolic link or
 * anything that is neither a regular file nor a folder.
 */
export async function openChild(dir: OpenNode, name: string): Promise<OpenNode | undefined> {
  const path = childRef(dir, name);
  let handle: FileHandle;
  try {
    handle = await open(path, O_RDONLY | O_NOFOLLOW | NO_WAIT);
  } catch {
    // A link (ELOOP), an entry removed since it was listed, or one we may not read: grep skips it.
    return undefined;
  }
  const stats = await handle.stat().catch(() => undefined);
  if (!stats || (!stats.isFile() && !stats.isDirectory())) {
    await handle.close();
    return undefined;
  }
  return { handle, stats, ref: refOf(handle, path) };
}

/** Replaces the whole content of an open file with `text`, from offset 0 whatever the handle's position. */
export async function replaceContent(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  await handle.truncate(0);
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, done);
    done += bytesWritten;
  }
}
