/**
 * Loading policy sources: the built-in plan policy, then files, folders and (with a git reader) `git:REV:path`
 * sources in the order given (the policy language, docs/reference/policy-language.md, "Load order"), each parsed
 * and validated. Reading is `source.ts`'s; this module only orders, dedupes and hands each text to
 * `load-text.ts`, which it imports only for a text the built-in snapshot does not answer (the parser and the
 * validator are most of a cold start). `load.ts` re-exports it.
 *
 * Contract: never throws for bad input. A real path is loaded once; a file with any error is refused (it
 * contributes no document) and all of its diagnostics are reported. `file` is the path as the user gave it
 * (folder entries: the folder as given joined with the entry name).
 * @module
 */
import { BUILTIN_PLAN_PATH } from './builtin-plan.js';
import { snapshotDocument } from './builtin-snapshot.js';
import type { LoadResult } from './load-text.js';
import { fileSource, policySource, type GitObjects, type PolicySource } from './source.js';

/** Options of {@link loadPolicySources}. */
export interface LoadOptions {
  /** Load the built-in plan policy first (default true). */
  builtin?: boolean;
  /** The folder relative paths resolve from (default: the process's folder); files are still reported as given. */
  cwd?: string;
  /** Reads `git:REV:path` sources; without it, such an argument is a path like any other. */
  git?: GitObjects;
}

/**
 * Loads policy sources, the built-in plan policy first.
 * @param paths files, folders or (with `options.git`) `git:REV:path` sources, as the user gave them
 * @param options built-in, working folder and git reader
 * @returns the valid documents, all diagnostics, and the files considered
 */
export async function loadPolicySources(
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const sources = paths.map((p) =>
    policySource(p, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.git === undefined ? {} : { git: options.git }),
    }),
  );
  if (options.builtin !== false) sources.unshift(fileSource(BUILTIN_PLAN_PATH));
  return loadFrom(sources);
}

/**
 * Loads sources in order; a file reached twice (the same real path) loads once.
 * @param sources where to read from
 * @returns the valid documents, all diagnostics, and the files considered
 */
export async function loadFrom(sources: readonly PolicySource[]): Promise<LoadResult> {
  const result: LoadResult = { documents: [], diagnostics: [], files: [] };
  const seen = new Set<string>();
  for (const source of sources) {
    const read = await source.read(seen);
    for (const d of read.diagnostics) result.diagnostics.push(d);
    if (read.unread?.length) (result.unread ??= []).push(...read.unread);
    const texts = new Map(read.texts.map((t) => [t.file, t.text]));
    for (const file of read.considered) {
      result.files.push(file);
      const text = texts.get(file);
      if (text === undefined) continue;
      const snapshotted = snapshotDocument(text, file);
      if (snapshotted !== undefined) {
        result.documents.push(snapshotted);
        continue;
      }
      const { loadPolicyText } = await import('./load-text.js');
      const loaded = loadPolicyText(text, file);
      for (const d of loaded.diagnostics) result.diagnostics.push(d);
      for (const d of loaded.documents) result.documents.push(d);
    }
  }
  return result;
}
