/**
 * Loading one policy text: parsed (`parse.ts`) and validated (`validate.ts`), or answered from the built-in
 * snapshot when it is exactly the snapshotted text (`builtin-snapshot.ts`). `load-sources.ts` imports this
 * module only when a text misses the snapshot, so a cold `dsh-mode lint` of the built-in plan loads neither the
 * parser nor the validator; `load.ts` re-exports it.
 *
 * Contract: never throws for bad input; a text with any error gives no document and all of its diagnostics.
 * @module
 */
import { snapshotDocument } from './builtin-snapshot.js';
import { hasErrors, type LoadDiagnostic } from './diagnostics.js';
import { parsePolicyText, type ParsedDocument } from './parse.js';
import type { SourceDocument } from './types.js';
import { validatePolicy } from './validate.js';

/** What loading produced: the valid documents in load order, every diagnostic, and the files read. */
export interface LoadResult {
  documents: SourceDocument[];
  diagnostics: LoadDiagnostic[];
  /** Every file considered, in load order, as reported (refused ones included). */
  files: string[];
  /** Subfolders of the folders given that hold policy files, which were not read (folders are not recursive). */
  unread?: string[];
}

/**
 * Parses and validates one inline document (a config `modes:` entry, a test fixture).
 * @param file where the text came from, or null
 * @returns the same shape as `loadPolicySources`, for one document (none when refused)
 */
export function loadPolicyText(text: string, file: string | null): LoadResult {
  const files = file === null ? [] : [file];
  // The built-in plan's exact text, loaded at build time: no parser, no validator (a cold start's largest cost).
  const snapshotted = snapshotDocument(text, file);
  if (snapshotted !== undefined) return { documents: [snapshotted], diagnostics: [], files };
  const parsed = parsePolicyText(text, file);
  const { document, diagnostics } = validatePolicy(parsed);
  if (!document || hasErrors(diagnostics)) return { documents: [], diagnostics, files };
  return { documents: [toSource(parsed, document)], diagnostics, files };
}

function toSource(parsed: ParsedDocument, document: SourceDocument['document']): SourceDocument {
  return { file: parsed.file, document, locate: parsed.locate, keyRange: parsed.keyRange };
}
