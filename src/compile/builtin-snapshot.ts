/**
 * The built-in plan policy, loaded and linted ahead of time: `npm run build` writes `builtin-snapshot.json` beside
 * this module (`scripts/builtin-snapshot.mjs`, through `builtin-snapshot-write.ts`): the text of
 * `policies/plan.yaml`, its validated document, its position tree and its lint findings. Loading a text that is
 * identical to the snapshotted one then needs neither the `yaml` parser nor the validator, and linting the
 * built-in plan on its own needs none of the rules: together, most of a cold `dsh-mode lint`.
 *
 * It is a cache, keyed by the text itself. Contract:
 * - `snapshotDocument(text, file)` answers only for exactly the snapshotted text read as YAML, with what
 *   `loadPolicyText` would have produced (a document, no diagnostic); any other text, or a `*.json` file, gets
 *   undefined and the caller parses as usual. So an edited `policies/plan.yaml` is never answered from a stale
 *   snapshot. Each answer is a fresh document.
 * - `snapshotFindings(input)` answers only for a lint of exactly one document, the built-in plan at
 *   {@link BUILTIN_PLAN_PATH} as `snapshotDocument` answered it, with no other diagnostic and no catalog: then with
 *   what `lintPolicies` gives for it. Anything else gets undefined, and the caller lints.
 * - A missing snapshot, one of another format, or a damaged one (its body does not match the SHA-256 its header
 *   names, or does not have the snapshot's shape) answers nothing: every load parses. Never throws.
 *
 * The file is one header line, `{"format":N,"sha256":HEX}`, then the JSON of {@link PolicySnapshot}, whose
 * UTF-8 bytes the hash covers.
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BUILTIN_PLAN_PATH } from './builtin-plan.js';
import { syntaxOf } from './policy-format.js';
import { treeLocator, type PositionNode } from './position-tree.js';
import type { PolicyDocument } from './schema-types.generated.js';
import type { Diagnostic, SourceDocument } from './types.js';

/** Where the snapshot is: beside this module (in `dist/compile/` after a build; absent in `src/`). */
export const SNAPSHOT_URL: URL = new URL('./builtin-snapshot.json', import.meta.url);

/** The current format of the snapshot file; a snapshot of another format is not used. */
export const SNAPSHOT_FORMAT = 2;

/** The snapshot's body. */
export interface PolicySnapshot {
  /** The exact text snapshotted: the cache key. */
  text: string;
  /** Its validated document (the data `loadPolicyText` returns for it). */
  document: PolicyDocument;
  /** Its positions. */
  tree: PositionNode | null;
  /**
   * What `lintPolicies` reports for it alone as the built-in plan (`file` is the built-in plan's path at build
   * time, replaced at use), or null when that cannot be cached (a finding names the build's path elsewhere).
   */
  findings: Diagnostic[] | null;
}

/** The snapshot file's text for a body: the header line and the body. */
export function snapshotFileText(body: PolicySnapshot): string {
  const json = JSON.stringify(body);
  return `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: sha256(json) })}\n${json}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The snapshot's body as read (its JSON text, parsed again for each answer) and its key; null: none usable. */
let cache: { json: string; text: string; findings: boolean } | null | undefined;

function snapshot(): { json: string; text: string; findings: boolean } | null {
  if (cache !== undefined) return cache;
  cache = null;
  try {
    cache = readSnapshot(readFileSync(SNAPSHOT_URL, 'utf8'));
  } catch {
    // No snapshot (a source checkout before its build, tests on src/): every text is parsed.
  }
  return cache;
}

/**
 * Checks a snapshot file's text: its format, its hash and its shape.
 * @param raw the file's text
 * @returns the body's JSON, its key and whether it holds findings, or null when it is not usable
 */
export function readSnapshot(raw: string): { json: string; text: string; findings: boolean } | null {
  const newline = raw.indexOf('\n');
  if (newline < 0) return null;
  try {
    const header = JSON.parse(raw.slice(0, newline)) as { format?: unknown; sha256?: unknown };
    const json = raw.slice(newline + 1);
    if (header.format !== SNAPSHOT_FORMAT || header.sha256 !== sha256(json)) return null;
    const body = JSON.parse(json) as Partial<PolicySnapshot> | null;
    if (!isObject(body) || typeof body.text !== 'string' || !isObject(body.document)) return null;
    if (body.tree !== null && !isObject(body.tree)) return null;
    if (body.findings !== null && !Array.isArray(body.findings)) return null;
    return { json, text: body.text, findings: body.findings !== null };
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The documents `snapshotDocument` answered (so `snapshotFindings` knows them), while they are alive. */
const answered = new WeakSet<SourceDocument>();

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
  const { document, tree } = JSON.parse(found.json) as PolicySnapshot;
  const { locate, keyRange } = treeLocator(tree);
  const source: SourceDocument = { file, document, locate, keyRange };
  answered.add(source);
  return source;
}

/**
 * The lint findings of a lint input from the snapshot, when the input is the built-in plan alone, as loaded
 * from the snapshot, with no other diagnostic and no catalog (and all the rules).
 * @param input the loaded documents and the diagnostics so far
 * @param catalog the tool catalog of the lint, if any (none is cached)
 * @returns what `lintPolicies(input)` returns, fresh, or undefined to lint as usual
 */
export function snapshotFindings(
  input: { documents: readonly SourceDocument[]; diagnostics: readonly Diagnostic[] },
  catalog?: unknown,
): Diagnostic[] | undefined {
  const [only] = input.documents;
  if (catalog !== undefined || input.diagnostics.length > 0 || input.documents.length !== 1) return undefined;
  if (only === undefined || !answered.has(only) || only.file !== BUILTIN_PLAN_PATH) return undefined;
  const found = snapshot();
  if (found === null || !found.findings) return undefined;
  const { findings } = JSON.parse(found.json) as PolicySnapshot;
  // The findings name the build's copy of the plan; this run's is the document's (the same key, in place).
  for (const d of findings!) d.file = only.file;
  return findings!;
}
