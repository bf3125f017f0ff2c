/**
 * A {@link PathResolver} over the real filesystem, for hosts and the CLI (the decision itself stays pure: it
 * only calls the resolver it is given).
 *
 * The written form is the lexical normalisation against the workspace. The target walks the path as written, one
 * component at a time, the way the kernel does: a symlink in the existing prefix is followed before any `..`
 * after it is applied (so `link/../x`, with `link` pointing out of the workspace, lands outside); the part that
 * does not exist yet is appended lexically. A symlink loop or an unreadable link makes the path unresolvable,
 * and so never allowed. The workspace root itself is compared by its real path.
 * @module
 */
import { lstatSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { relativeTo, type PathForm, type PathResolver } from './paths.js';

/**
 * The real-filesystem resolver for one workspace.
 * @param workspace the workspace root (absolute, or relative to the process's current folder)
 * @returns the resolver
 */
export function fsPathResolver(workspace: string): PathResolver {
  const root = posix.resolve(workspace);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = root;
  }
  const form = (absolute: string, base: string): PathForm => {
    const relative = relativeTo(base, absolute);
    return relative === undefined ? { absolute } : { absolute, relative };
  };
  return (path) => {
    if (path.includes('\0')) return undefined;
    const written = posix.resolve(root, path);
    const target = followExisting(path.startsWith('/') ? path : `${root}/${path}`);
    if (target === undefined) return undefined;
    // The target is compared with the real root, the written path with the root as given (a workspace under a
    // symlinked folder such as macOS's /tmp must not put everything outside).
    return { written: form(written, root), target: form(target, realRoot) };
  };
}

/** The kernel's view of `path`: symlinks of the existing prefix followed, the rest appended lexically. */
function followExisting(path: string): string | undefined {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  let current = '/';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '..') {
      current = posix.dirname(current);
      continue;
    }
    const next = posix.join(current, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // The rest does not exist (or cannot be read): appended lexically.
      return posix.resolve(next, ...parts.slice(i + 1));
    }
    if (!isLink) {
      current = next;
      continue;
    }
    try {
      current = realpathSync(next);
    } catch {
      // A loop or a dangling link: where a write through it lands is not worth guessing.
      return undefined;
    }
  }
  return current;
}
