/**
 * Opening workspace files so that the confinement check and the file operation refer to the same file. A path
 * check alone (see `confine`) leaves a window: another process can swap a folder or a file for a symbolic link
 * between the check and the `open`. Here the check is made on the open descriptor instead.
 *
 * - Reads open the path (following links inside the workspace) and then ask the kernel where the descriptor
 *   really points (`/proc/self/fd/N`); a file outside the workspace is closed unread.
 * - Writes never open through an unchecked folder: they walk from the workspace root one component at a time,
 *   each relative to the last checked folder's descriptor (`/proc/self/fd/N/name`, in effect `openat`), and the
 *   last component is opened with `O_NOFOLLOW` (a link is resolved by hand and checked). New files are created
 *   with `O_EXCL`, which never follows a link. So nothing is created, truncated or written outside.
 * - Everything opens with `O_NONBLOCK` and is refused unless it is a regular file (or a folder where one is
 *   expected), so a FIFO or a device never blocks a call.
 *
 * Where `/proc/self/fd` does not exist (not Linux), the same walk runs on path strings and each step is checked
 * with `realpath`: the window narrows to one component but is not closed.
 * @module
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { assertRegular } from '../../files/read-file.js';
import { explainFsError, inside } from './paths.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;
// Never wait on a FIFO or a device, and never make a terminal the controlling one.
const NO_WAIT = (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');
const MAX_HOPS = 40;

/** An open file or folder of the workspace, with the path it was reached by (for the fallback and messages). */
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

/** Where the workspace root really is (links resolved). */
export async function realRoot(workspace: string, display: string): Promise<string> {
  return realpath(resolve(workspace)).catch((error) => explainFsError(error, display));
}

/** Refuses `handle` unless what it is open on lies inside `root` (a real path). */
async function assertInside(
  handle: FileHandle,
  fallback: string,
  root: string,
  display: string,
): Promise<void> {
  const real = PROC_FD ? await readlink(refOf(handle, fallback)) : await realpath(fallback);
  if (!inside(root, real)) throw new Error(`\`${display}\` leaves the workspace through a symbolic link`);
}

/**
 * Opens `absolute` (a path `confine` accepted) for reading, checked on the descriptor.
 * @param expect `file` refuses anything but a regular file; `folder` anything but a folder; `any` takes both
 * @throws an error naming `display` (never the absolute path)
 */
export async function openForRead(
  workspace: string,
  absolute: string,
  display: string,
  expect: 'file' | 'folder' | 'any',
): Promise<OpenNode> {
  const root = await realRoot(workspace, display);
  const flags = O_RDONLY | NO_WAIT | (expect === 'folder' ? O_DIRECTORY : 0);
  const handle = await open(absolute, flags).catch((error) => explainFsError(error, display));
  try {
    await assertInside(handle, absolute, root, display);
    const stats = await handle.stat();
    if (expect === 'file' || (expect === 'any' && !stats.isDirectory())) assertRegular(stats);
    return { handle, stats, ref: refOf(handle, absolute) };
  } catch (error) {
    await handle.close();
    return explainFsError(error, display);
  }
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

/**
 * Opens the workspace file `display` (a path `confine` accepted, relative to the root): `write` opens it for
 * writing, creating missing parent folders and the file; `edit` opens an existing file for reading and writing.
 * The returned handle is on a regular file inside the workspace, positioned at 0, not truncated.
 * @throws an error naming `display` (never the absolute path)
 */
export async function openForWrite(
  workspace: string,
  display: string,
  mode: 'write' | 'edit',
): Promise<FileHandle> {
  const root = await realRoot(workspace, display);
  return openWalk(root, display, display, mode, 0);
}

async function openWalk(
  root: string,
  path: string,
  display: string,
  mode: 'write' | 'edit',
  hops: number,
): Promise<FileHandle> {
  const parts = path.split(sep).filter((part) => part !== '' && part !== '.');
  const name = parts.pop();
  if (name === undefined || name === '..') throw new Error(`\`${display}\` is a folder`);
  let dir = await openRoot(root, display);
  try {
    for (const part of parts) {
      const next = await openFolderStep(dir, part, root, display, mode === 'write');
      await dir.handle.close();
      dir = next;
    }
    const flags = (mode === 'edit' ? O_RDWR : O_WRONLY) | NO_WAIT;
    const target = childRef(dir, name);
    let handle: FileHandle | undefined;
    for (let attempt = 0; handle === undefined; attempt++) {
      try {
        handle = await open(target, flags | O_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && mode === 'write' && attempt < 3) {
          // O_EXCL never follows a link: a link planted since the first open makes this fail with EEXIST.
          handle = await open(target, flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666).catch((again) => {
            if ((again as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
            throw again;
          });
          continue;
        }
        if ((code === 'ELOOP' || code === 'EMLINK') && hops < MAX_HOPS) {
          // The last component is a symbolic link: follow it by hand, and only to a path inside the workspace.
          const link = await readlink(target);
          const base = PROC_FD ? await readlink(dir.ref) : dir.ref;
          const next = resolve(base, link);
          if (!inside(root, next))
            throw new Error(`\`${display}\` leaves the workspace through a symbolic link`);
          return await openWalk(root, relative(root, next), display, mode, hops + 1);
        }
        if (code === 'ELOOP' || code === 'EMLINK')
          throw new Error(`\`${display}\` has too many levels of symbolic links`);
        throw error;
      }
    }
    try {
      await assertInside(handle, target, root, display);
      assertRegular(await handle.stat());
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  } catch (error) {
    return explainFsError(error, display);
  } finally {
    await dir.handle.close();
  }
}

async function openRoot(root: string, display: string): Promise<OpenNode> {
  const handle = await open(root, O_RDONLY | O_DIRECTORY).catch((error) => explainFsError(error, display));
  return { handle, stats: await handle.stat(), ref: refOf(handle, root) };
}

/** One folder of a write's walk: opened relative to its checked parent, created when missing and `create`. */
async function openFolderStep(
  dir: OpenNode,
  part: string,
  root: string,
  display: string,
  create: boolean,
): Promise<OpenNode> {
  const path = childRef(dir, part);
  for (let attempt = 0; ; attempt++) {
    try {
      // Following a link is fine here: the folder reached is checked before anything is opened in it.
      const handle = await open(path, O_RDONLY | O_DIRECTORY);
      try {
        await assertInside(handle, path, root, display);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return { handle, stats: await handle.stat(), ref: refOf(handle, path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !create || attempt >= 3) throw error;
      // mkdir never follows a link in its last component, so it cannot create a folder outside.
      await mkdir(path).catch((again) => {
        if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
      });
      if (attempt >= 1) {
        // mkdir says it exists, open says it does not: a link to a missing folder.
        throw new Error(`\`${display}\` goes through a symbolic link to a folder that does not exist`);
      }
    }
  }
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
