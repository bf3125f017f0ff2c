/**
 * Making the built-in snapshot (`builtin-snapshot.ts`): `npm run build` runs `scripts/builtin-snapshot.mjs`, which
 * calls {@link writeBuiltinSnapshot} on the built modules, so the snapshot always comes from the parser and the
 * validator of the same build.
 *
 * Contract: a snapshot is made only of a text that loads with no diagnostic at all and whose document survives
 * a JSON round trip unchanged; otherwise no snapshot is written (and an older one is removed), and every load
 * parses. Build-time code: nothing at run time imports this module.
 * @module
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { SNAPSHOT_FORMAT, SNAPSHOT_URL, type PolicySnapshot } from './builtin-snapshot.js';
import { BUILTIN_PLAN_PATH, loadPolicyText } from './load.js';
import { positionTree } from './parse.js';

/**
 * The snapshot of one policy text.
 * @param text the policy text
 * @returns the snapshot, or undefined when the text cannot be snapshotted (it has diagnostics, or data JSON
 * cannot carry)
 */
export function makeSnapshot(text: string): PolicySnapshot | undefined {
  const loaded = loadPolicyText(text, null);
  const source = loaded.documents[0];
  if (loaded.diagnostics.length > 0 || loaded.documents.length !== 1 || source === undefined)
    return undefined;
  const snapshot: PolicySnapshot = {
    format: SNAPSHOT_FORMAT,
    text,
    document: source.document,
    tree: positionTree(text),
  };
  const back = JSON.parse(JSON.stringify(snapshot)) as PolicySnapshot;
  return isDeepStrictEqual(back, snapshot) ? snapshot : undefined;
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
  writeFileSync(SNAPSHOT_URL, JSON.stringify(snapshot));
  return true;
}
