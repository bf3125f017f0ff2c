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
 * - The code is not part of the key: the snapshot holds what the parser, the validator and the rules of its own
 *   build made, and `npm run build` makes both together. A `dist/` that `tsc` alone rebuilt keeps the snapshot of
 *   the code before (the test setup remakes it when it is older than a built module; by hand, `npm run build`).
 * - A missing snapshot, one of another format, or a damaged one (its parts do not match the SHA-256 its header
 *   names, or its key is no text) answers nothing: every load parses; a part that is not of its shape (checked
 *   when first parsed) answers nothing either. Never throws.
 *
 * The file is one header line, `{"format":N,"sha256":HEX}`, then one line of JSON per part of
 * {@link PolicySnapshot} (text, document, tree, findings), whose UTF-8 bytes the hash covers: a run parses only
 * the parts it uses (the tree and the document are most of the file, the findings none of it).
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

/**
 * The snapshot file's text for a body: a header line naming the format and the SHA-256 of the rest, then one
 * line of JSON for each part (text, document, tree, findings; JSON has no raw newline), so that a run parses
 * only the parts it uses.
 */
export function snapshotFileText(body: PolicySnapshot): string {
  const rest = [body.text, body.document, body.tree, body.findings].map((v) => JSON.stringify(v)).join('\n');
  return `${JSON.stringify({ format: SNAPSHOT_FORMAT, sha256: sha256(rest) })}\n${rest}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A snapshot file that passed its checks: its key, and its parts, each parsed (and checked) when first used. */
export interface SnapshotReader {
  /** The snapshotted text: the cache key. */
  readonly text: string;
  /** A fresh document of the text, named `file`, or undefined when the part is not a document's shape. */
  document(file: string | null): SourceDocument | undefined;
  /** Fresh findings, named `file`, or undefined when there are none cached (or the part is not a list). */
  findings(file: string | null): Diagnostic[] | undefined;
}

/**
 * Checks a snapshot file's text: its format, the hash of its parts and their number, and that its key is a text.
 * @param raw the file's text
 * @returns its reader, or null when it is not usable
 */
export function readSnapshot(raw: string): SnapshotReader | null {
  const newline = raw.indexOf('\n');
  if (newline < 0) return null;
  const rest = raw.slice(newline + 1);
  const parts = rest.split('\n');
  let key: unknown;
  try {
    const header = JSON.parse(raw.slice(0, newline)) as { format?: unknown; sha256?: unknown } | null;
    if (header?.format !== SNAPSHOT_FORMAT || header.sha256 !== sha256(rest) || parts.length !== 4)
      return null;
    key = JSON.parse(parts[0]!);
  } catch {
    return null;
  }
  if (typeof key !== 'string') return null;
  const [, documentJson, treeJson, findingsJson] = parts as [string, string, string, string];
  let tree: PositionNode | null | undefined;
  return {
    text: key,
    document(file) {
      const document = parsePart(documentJson);
      // The tree is only read (each lookup answers fresh ranges), so one parse serves every answer.
      tree ??= parsePart(treeJson) as PositionNode | null | undefined;
      if (!isObject(document) || (tree !== null && !isObject(tree))) return undefined;
      const { locate, keyRange } = treeLocator(tree);
      return { file, document: document as PolicyDocument, locate, keyRange };
    },
    findings(file) {
      const findings = parsePart(findingsJson);
      if (!Array.isArray(findings) || !findings.every(isObject)) return undefined;
      // The findings name the build's copy of the plan; a run's is the document's (the same key, in place).
      for (const d of findings as Diagnostic[]) d.file = file;
      return findings as Diagnostic[];
    },
  };
}

/** A part's value; undefined when it is not JSON (the hash matched, so only a writer's bug could do that). */
function parsePart(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The snapshot beside this module, read on first use; null when there is none usable. */
let cache: SnapshotReader | null | undefined;

function snapshot(): SnapshotReader | null {
  if (cache !== undefined) return cache;
  cache = null;
  try {
    cache = readSnapshot(readFileSync(SNAPSHOT_URL, 'utf8'));
  } catch {
    // No snapshot (a source checkout before its build, tests on src/): every text is parsed.
  }
  return cache;
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
  const source = found.document(file);
  if (source !== undefined) answered.add(source);
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
  return snapshot()?.findings(only.file);
}
