// Shared fixtures for the compile tests: inline YAML → documents, and compact views of diagnostics.
import {
  compilePolicies,
  loadPolicyText,
  type CompiledPolicy,
  type Diagnostic,
} from '../../src/compile/api.js';
import { type SourceDocument } from '../../src/compile/types.js';

/** Loads inline YAML that must be valid; throws with the diagnostics otherwise. */
export function doc(text: string, file: string | null = 'test.yaml'): SourceDocument {
  const result = loadPolicyText(text, file);
  if (result.documents.length !== 1) {
    throw new Error(`fixture does not load: ${JSON.stringify(result.diagnostics)}`);
  }
  return result.documents[0]!;
}

/** Compiles inline YAML documents in order and returns one mode's policy. */
export function policy(mode: string, ...texts: string[]): CompiledPolicy {
  const p = compilePolicies(texts.map((t, i) => doc(t, `doc${i}.yaml`))).get(mode);
  if (!p) throw new Error(`no mode ${mode}`);
  return p;
}

/** `code line:column-endLine:endColumn`, for compact position assertions. */
export function where(d: Diagnostic): string {
  const r = d.range;
  return r ? `${d.code} ${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column}` : `${d.code} -`;
}
