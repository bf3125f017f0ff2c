/**
 * The policies of a workspace read the long way: `cordis.yml` (its `mode` entry: the built-in plan, its policy
 * files and folders, its inline modes) resolved as `check --config` and the gate resolve it, or the built-in
 * policies when the workspace has none. `compiled.ts` calls this only when its kept record is missing or stale,
 * and keeps what it returns; it is its own module so that a hook process whose record is current never loads the
 * YAML parser and the schema validators.
 *
 * The trust decision is `compiled.ts`'s, made before this runs; the file is read again here, and a source that
 * changed while this ran is not recorded, so the next call reads it again.
 * @module
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { loadPolicySources } from '../compile/index.js';
import type { Diagnostic } from '../compile/types.js';
import { deploymentPolicies, readDeployment as readDeploymentFile, whereOf } from '../deploy/index.js';
import { DEPLOYMENT_FILE, PolicyLoadError, type ReadDeployment } from './policy-error.js';

/**
 * Reads a workspace's policies.
 * @param workspace the session's folder
 * @returns the documents and every file and folder they were read from
 * @throws PolicyLoadError when they do not load
 */
export async function readDeployment(workspace: string): Promise<ReadDeployment> {
  const file = join(workspace, DEPLOYMENT_FILE);
  let present = true;
  try {
    statSync(file);
  } catch {
    present = false;
  }
  if (!present) {
    const load = await loadPolicySources([], { builtin: true, cwd: workspace });
    refuse(load.diagnostics, 'the built-in policies');
    return { documents: load.documents, source: 'built-in', files: load.files, folders: [] };
  }
  const read = readDeploymentFile(file);
  refuse(read.diagnostics, file);
  const deployed = await deploymentPolicies(file);
  refuse(deployed.diagnostics, file);
  if (!deployed.policies) throw new PolicyLoadError(`${file} has no policies to decide with`);
  const folders: string[] = [];
  for (const entry of read.entries) {
    const paths = (entry.config as { policies?: unknown } | null)?.policies;
    if (entry.name !== 'mode' || !Array.isArray(paths)) continue;
    for (const p of paths) {
      if (typeof p !== 'string') continue;
      const at = isAbsolute(p) ? p : resolve(entry.baseDir, p);
      if (isFolder(at)) folders.push(at);
      else folders.push(dirname(at));
    }
  }
  return { documents: deployed.documents, source: file, files: deployed.files, folders };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function refuse(diagnostics: readonly Diagnostic[], what: string): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new PolicyLoadError(
    `${what} cannot load: ${first.file === null ? '' : `${whereOf(first)}: `}${first.message}${more}; run dsh-mode lint to see every error`,
  );
}
