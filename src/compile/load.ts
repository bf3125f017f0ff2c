/**
 * Loading policies, the public face: the built-in plan policy's path, `loadPolicySources` and `loadFrom`
 * (`load-sources.ts`: the built-in plan, then files, folders and `git:REV:path` sources in order, deduped) and
 * `loadPolicyText` (`load-text.ts`: one text, parsed and validated). The work is split so that a cold start that
 * needs no parsing (the built-in plan, answered by its snapshot) loads no parser: code on that path imports
 * `load-sources.ts` itself; everything else may import this module.
 *
 * Contract: never throws for bad input. A real path is loaded once; a file with any error is refused (it
 * contributes no document) and all of its diagnostics are reported. `file` is the path as the user gave it
 * (folder entries: the folder as given joined with the entry name).
 * @module
 */
import type { SourceDocument } from './types.js';

export type { SourceDocument };
export { BUILTIN_PLAN_PATH } from './builtin-plan.js';
export { loadFrom, loadPolicySources, type LoadOptions } from './load-sources.js';
export { loadPolicyText, type LoadResult } from './load-text.js';
