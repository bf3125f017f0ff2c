/**
 * A mode's `sandbox` setting, composed over its documents as a ceiling: `read-only` beats `none`, and among equal
 * settings the first in load order is reported (as for decisions). `override: true` has already dropped the
 * earlier documents (`compilePolicies`), so a replacing document's setting is all that counts. Without any
 * `sandbox` key the mode has no setting, and its program-running tools run unsandboxed.
 * @module
 */
import type { CompiledDocument, SandboxKind, SandboxSetting } from '../types.js';

/** Restrictiveness of the settings: a higher number wins the ceiling. */
const RANK: Readonly<Record<SandboxKind, number>> = { none: 0, 'read-only': 1 };

/**
 * Composes the documents' `sandbox` keys.
 * @param documents the mode's documents in load order (after `override`)
 * @returns the most restrictive setting with where it is written, or undefined when no document sets one
 */
export function composeSandbox(documents: readonly CompiledDocument[]): SandboxSetting | undefined {
  let best: SandboxSetting | undefined;
  for (const doc of documents) {
    const kind = doc.source.document.sandbox;
    if (kind === undefined || (best && RANK[kind] <= RANK[best.kind])) continue;
    const path = ['sandbox'];
    const range = doc.source.keyRange?.(path) ?? doc.source.locate(path);
    best = Object.freeze({
      kind,
      rule: Object.freeze({
        selector: 'sandbox',
        file: doc.source.file,
        line: range?.start.line ?? null,
        column: range?.start.column ?? null,
      }),
    });
  }
  return best;
}
