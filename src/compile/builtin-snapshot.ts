/**
 * The built-in plan policy, loaded ahead of time: `npm run build` writes `builtin-snapshot.json` beside this module
 * (`scripts/builtin-snapshot.mjs`, through `builtin-snapshot-write.ts`): the text of `policies/plan.yaml`, its
 * validated document and its position tree. Loading a text that is byte-identical to the snapshotted one then
 * needs neither the `yaml` parser nor the validator, which are most of a cold `dsh-mode lint`.
 *
 * Contract: `snapshotDocument(text, file)` answers only for exactly the snapshotted text read as YAML, with what
 * `loadPolicyText` would have produced (a document, no diagnostic); any other text, a missing or unreadable
 * snapshot, or a `*.json` file gets undefined, and the caller parses as usual. So an edited `policies/plan.yaml`
 * is never answered from a stale snapshot. Each answer is a fresh document. Never throws.
 * @module
 */
import { readFileSync } from 'node:fs';
import { syntaxOf } from './parse.js';
import { treeLocator, type PositionNode } from './position-tree.js';
import type { PolicyDocument } from './schema-types.generated.js';
import type { SourceDocument } from './types.js';

/** Where the snapshot is: beside this module (in `dist/compile/` after a build; absent in `src/`). */
export const SNAPSHOT_URL: URL = new URL('./builtin-snapshot.json', import.meta.url);

/** The snapshot file's contents. */
export interface PolicySnapshot {
  /** The format; a snapshot of another format is not used. */
  format: typeof SNAPSHOT_FORMAT;
  /** The exact text snapshotted. */
  text: string;
  /** Its validated document (the data `loadPolicyText` returns for it). */
  document: PolicyDocument;
  /** Its positions. */
  tree: PositionNode | null;
}

/** The current format of {@link PolicySnapshot}. */
export const SNAPSHOT_FORMAT = 1;

/** The snapshot file's text and the text it holds; null when there is no usable snapshot. */
let cache: { raw: string; text: string } | null | undefined;

function snapshot(): { raw: string; text: string } | null {
  if (cache !== undefined) return cache;
  cache = null;
  try {
    const raw = readFileSync(SNAPSHOT_URL, 'utf8');
    const parsed = JSON.parse(raw) as Partial<PolicySnapshot>;
    if (parsed.format === SNAPSHOT_FORMAT && typeof parsed.text === 'string')
      cache = { raw, text: parsed.text };
  } catch {
    // No snapshot (a source checkout before its build, tests on src/): every text is parsed.
  }
  return cache;
}

/**
 * The loaded document of `text` from the snapshot, when `text` is exactly the snapshotted text.
 * @param text the policy text
 * @param file where it came from, as reported (null for inline text)
 * @returns the document, as `loadPolicyText` would load it, or undefined to parse as usual
 */
export function snapshotDocument(text: string, file: string | null): SourceDocument | undefined {
  const found = snapshot();
  if (found === null || text.length !== found.text.length || text !== found.text) return undefined;
  if (syntaxOf(file) !== 'yaml') return undefined;
  // Parsed again for each answer: the caller owns its document, as after a real parse.
  const { document, tree } = JSON.parse(found.raw) as PolicySnapshot;
  const { locate, keyRange } = treeLocator(tree);
  return { file, document, locate, keyRange };
}
