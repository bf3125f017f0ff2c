/**
 * One side of a comparison for `diff` and `matrix`: policy files or folders on disk, or `git:REV:path` sources,
 * loaded exactly as `lint` loads them (paths as given, relative to the process's folder) (the built-in plan first unless `builtin: false`, then each source in
 * order). A git source goes through `loadPolicyText`, so its documents are parsed and validated the same way
 * as files; its file names read `git:REV:path`.
 *
 * A built-in plan loaded from a git source is not recognised as the built-in (only real paths are compared):
 * when diffing the built-in `policies/plan.yaml` itself, pass `--no-builtin`.
 * @module
 */
import { loadPolicySources, loadPolicyText, type LoadResult } from '../compile/load.js';
import { parseGitSpec, readGitSource } from './git-source.js';

/** Options of {@link loadSources}. */
export interface LoadSourcesOptions {
  /** Load the built-in plan policy first (default true). */
  builtin?: boolean;
  /** The folder git runs in; `git:REV:path` paths are relative to it. */
  cwd: string;
}

/**
 * Loads policy sources in order: paths (files, folders) and `git:REV:path` sources, mixed freely.
 * @param sources as the user wrote them
 * @param options built-in and working folder
 * @returns documents in load order, every diagnostic and the files considered
 */
export async function loadSources(
  sources: readonly string[],
  options: LoadSourcesOptions,
): Promise<LoadResult> {
  const result: LoadResult = { documents: [], diagnostics: [], files: [] };
  const append = (part: LoadResult) => {
    for (const d of part.documents) result.documents.push(d);
    for (const d of part.diagnostics) result.diagnostics.push(d);
    for (const f of part.files) result.files.push(f);
  };
  let builtin = options.builtin !== false;
  let pending: string[] = [];
  // Consecutive plain paths load in one call, so "the same real file is not loaded twice" holds among them.
  const flush = async () => {
    if (pending.length === 0 && !builtin) return;
    append(await loadPolicySources(pending, { builtin }));
    builtin = false;
    pending = [];
  };
  for (const source of sources) {
    const spec = parseGitSpec(source);
    if (spec === undefined) {
      pending.push(source);
      continue;
    }
    await flush();
    const read = await readGitSource(spec, options.cwd);
    for (const d of read.diagnostics) result.diagnostics.push(d);
    for (const file of read.files) append(loadPolicyText(file.text, file.file));
  }
  await flush();
  return result;
}
