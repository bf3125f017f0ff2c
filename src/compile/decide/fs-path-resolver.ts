/**
 * A {@link PathResolver} over the real filesystem, for hosts and the CLI (the decision itself stays pure: it
 * only calls the resolver it is given). A thin adapter over `resolveWorkspacePath` (src/files/resolve-path.ts),
 * the one resolution that the file tools open too.
 *
 * The written form is the lexical normalisation against the workspace root as given; the target is where the
 * kernel lands, compared with the root's real path (a workspace under a symlinked folder such as macOS's /tmp
 * must not put everything outside). A path that cannot be resolved safely (a `..` after a missing folder, a link
 * loop, a component that is not a folder) comes back with the reason, and is denied.
 * @module
 */
import { resolveWorkspacePath, type WorkspacePathResolution } from '../../files/resolve-path.js';
import { relativeTo, type PathForm, type PathResolver } from './paths.js';

/** Options of {@link fsPathResolver}. */
export interface FsPathResolverOptions {
  /**
   * The resolutions made, by path as written: a path asked for again is answered from here, so every document
   * of one call decides on one resolution, and the caller can hand exactly that one to the tool. Give a fresh
   * map per call.
   */
  readonly record?: Map<string, WorkspacePathResolution>;
}

/**
 * The real-filesystem resolver for one workspace.
 * @param workspace the workspace root (absolute, or relative to the process's current folder)
 * @param options where to record the resolutions of one call
 * @returns the resolver
 */
export function fsPathResolver(workspace: string, options: FsPathResolverOptions = {}): PathResolver {
  const { record } = options;
  return (path) => {
    let resolution = record?.get(path);
    if (resolution === undefined) {
      resolution = resolveWorkspacePath(workspace, path);
      record?.set(path, resolution);
    }
    if (!resolution.ok) return { unresolved: resolution.reason };
    return {
      written: form(resolution.written, resolution.root),
      target: form(resolution.target, resolution.realRoot),
    };
  };
}

function form(absolute: string, base: string): PathForm {
  const relative = relativeTo(base, absolute);
  return relative === undefined ? { absolute } : { absolute, relative };
}
