/**
 * Where a session log may be opened. A cloned repository can ship `.dsh` (or `.dsh/sessions`, or a log) as a
 * symbolic link; following it would write, and on resume truncate, a file outside the workspace. So the folders a
 * log lies in are checked with `lstat` and none may be a link:
 * - for a log inside the workspace, every folder from the workspace (exclusive) down to the log's folder;
 * - for a log elsewhere, every folder from the last `.dsh` on its path down (an ACP client's `cwd/.dsh/sessions`);
 * - for any other path (one the user named explicitly), only the log itself.
 * The log file itself is never followed (see `journal-file.ts`). The workspace and the folders above it are the
 * user's choice and may be links.
 * @module
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { linkRefused } from './journal-file.js';

/** The folders of `file`'s path that must be real folders, outermost first. */
export function checkedFolders(file: string, workspace: string): { base: string; folders: string[] } {
  const folder = dirname(file);
  const inside = relative(workspace, folder);
  if (inside === '') return { base: folder, folders: [] };
  const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  if (!outside) return { base: workspace, folders: chain(workspace, inside) };
  const parts = folder.split(sep);
  const dsh = parts.lastIndexOf('.dsh');
  if (dsh <= 0) return { base: folder, folders: [] };
  const base = parts.slice(0, dsh).join(sep) || sep;
  return { base, folders: chain(base, parts.slice(dsh).join(sep)) };
}

function chain(base: string, inside: string): string[] {
  const folders: string[] = [];
  let at = base;
  for (const part of inside.split(sep)) if (part !== '') folders.push((at = join(at, part)));
  return folders;
}

/**
 * Refuses a log whose folders (see the module) include a symbolic link or a non-folder.
 * @param create make the missing folders (one at a time, so none is created through a link)
 * @returns false when a folder is missing (and `create` is off)
 */
export function checkFolders(file: string, workspace: string, create: boolean): boolean {
  const { base, folders } = checkedFolders(file, workspace);
  if (create) mkdirSync(base, { recursive: true });
  for (const folder of folders) {
    if (create) {
      try {
        mkdirSync(folder);
        continue;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    let stat;
    try {
      stat = lstatSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    if (stat.isSymbolicLink()) throw linkRefused(folder, 'the sessions folder');
    if (!stat.isDirectory()) throw new Error(`refusing the sessions folder ${folder}: it is not a folder`);
  }
  return true;
}

/**
 * Checks a log that should exist: its folders, and the file itself (a link or a non-regular file is refused).
 * Throws `no session journal at FILE` when it is missing.
 */
export function checkExistingLog(file: string, workspace: string): void {
  if (!checkFolders(file, workspace, false)) throw new Error(`no session journal at ${file}`);
  let stat;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no session journal at ${file}`);
    throw error;
  }
  if (stat.isSymbolicLink()) throw linkRefused(file, 'session journal');
  if (!stat.isFile()) throw new Error(`refusing session journal ${file}: it is not a regular file`);
}
