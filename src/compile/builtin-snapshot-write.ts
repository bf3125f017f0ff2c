/**
 * Making the built-in snapshot (`builtin-snapshot.ts`): `npm run build` runs `scripts/builtin-snapshot.mjs`, which
 * calls {@link writeBuiltinSnapshot} on the built modules, so the snapshot always comes from the parser, the
 * validator and the lint rules of the same build.
 *
 * Contract: a snapshot is made only of a text that loads with no diagnostic at all and whose document survives
 * a JSON round trip unchanged; otherwise no snapshot is written (and an older one is removed), and every load
 * parses. Its lint findings are those of the text linted alone as the built-in plan, kept only when they too
 * survive a JSON round trip and name the build's path nowhere but in their `file`. The file is written whole
 * (a temporary file renamed), so a reader never sees half of it. Build-time code: nothing at run time imports
 * this module.
 * @module
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { BUILTIN_PLAN_PATH } from './builtin-plan.js';
import { SNAPSHOT_URL, snapshotFileText, type PolicySnapshot } from './builtin-snapshot.js';
import { lintPolicies } from './lint.js';
import { parsePolicyText, positionTree } from './parse.js';
import { validatePolicy } from './validate.js';
import type { Diagnostic } from './types.js';

/**
 * The snapshot of one policy text.
 * @param text the policy text (read as YAML, and linted as the built-in plan: at {@link BUILTIN_PLAN_PATH})
 * @returns the snapshot, or undefined when the text cannot be snapshotted (it has diagnostics, or data JSON
 * cannot carry)
 */
export function makeSnapshot(text: string): PolicySnapshot | undefined {
  const file = BUILTIN_PLAN_PATH;
  // Parsed and validated directly, not through `loadPolicyText`, which would answer from an older snapshot.
  const parsed = parsePolicyText(text, file);
  const { document, diagnostics } = validatePolicy(parsed);
  if (document === undefined || diagnostics.length > 0) return undefined;
  const snapshot: PolicySnapshot = { text, document, tree: positionTree(text), findings: null };
  if (!roundTrips(snapshot)) return undefined;
  const source = { file, document, locate: parsed.locate, keyRange: parsed.keyRange };
  const findings = lintPolicies({ documents: [source], diagnostics: [] });
  if (roundTrips(findings) && !namesPath(findings, file)) snapshot.findings = findings;
  return snapshot;
}

function roundTrips(value: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value);
}

/** Whether a finding names `file` anywhere but in its `file` (a message quoting it would go stale). */
function namesPath(findings: readonly Diagnostic[], file: string): boolean {
  return findings.some((d) =>
    JSON.stringify({ ...d, file: null }).includes(JSON.stringify(file).slice(1, -1)),
  );
}

/**
 * Writes the snapshot of the built-in plan policy beside `builtin-snapshot.ts`'s module.
 * @param file the policy file (default: the built-in plan)
 * @returns whether a snapshot was written (false: none, and any older one removed)
 */
export function writeBuiltinSnapshot(file: string = BUILTIN_PLAN_PATH): boolean {
  rmSync(SNAPSHOT_URL, { force: true });
  // Decoded as loading decodes a policy file (strict UTF-8, a BOM dropped), so the texts compare equal.
  const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  const snapshot = makeSnapshot(text);
  if (snapshot === undefined) return false;
  const target = fileURLToPath(SNAPSHOT_URL);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, snapshotFileText(snapshot));
  renameSync(temporary, target);
  return true;
}
