/**
 * The compiled deployment of a workspace: THE way the hook gets its policies. A hook process starts before every
 * tool call, and reading the policies the long way (parsing YAML, validating against the schema) costs more than
 * starting node does; so the validated documents of a workspace's policies are kept, in the user's cache folder,
 * with what they were read from, and each hook call checks that nothing they were read from has changed before it
 * compiles them (the same `compilePolicies` every other command uses).
 *
 * What is kept: `$XDG_CACHE_HOME/dsh-mode/deployments/<sha256 of the workspace>.json` (default `~/.cache`), holding
 * the package version, every file read (its path and sha256: the built-in plan, `cordis.yml`, every policy file),
 * the listing of every policy folder the deployment names, and the documents with the positions their rules are
 * reported at. It is outside the project, so a cloned repository cannot ship one.
 *
 * When it is used: the package version is this one, every file still has its hash, every folder still has its
 * listing, and `cordis.yml`, read once for the trust decision, has the hash recorded. Otherwise (and when there is
 * none, or it cannot be read) the policies are read the long way (`policies.ts`, loaded only then) and the record
 * is replaced. `dsh-mode install` writes it first. A record that does not parse is replaced, never trusted: the
 * documents it holds are used only when the hashes of their sources match, and only the user can write the cache.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { readHashed, trustStatus } from '../apps/trust.js';
import { compilePolicies, type CompiledPolicySet } from '../compile/runtime.js';
import type { JsonPath, PolicyDocument, Range, SourceDocument } from '../compile/types.js';
import { DEPLOYMENT_FILE, PolicyLoadError, type ReadDeployment } from './policy-error.js';

export { DEPLOYMENT_FILE, PolicyLoadError } from './policy-error.js';

/** The record's format; a record of another format is replaced. */
const FORMAT = 1;
/** The policies of a workspace. */
export interface AgentPolicies {
  policies: CompiledPolicySet;
  /** `cordis.yml`'s path, or `built-in` when the workspace has none. */
  source: string;
  /** Whether the kept record was used (false: read the long way, and the record written). */
  kept: boolean;
}

interface Record_ {
  format: number;
  version: string;
  workspace: string;
  source: string;
  files: Array<{ path: string; sha256: string }>;
  folders: Array<{ path: string; names: string[] }>;
  documents: Array<{ file: string | null; document: PolicyDocument; refs: Array<[string, number, number]> }>;
}

/**
 * The policies a workspace's sessions are decided with.
 * @param workspace the session's folder
 * @param env the environment (the cache and the trust records are found through it)
 * @param version the package's version
 * @throws PolicyLoadError when `cordis.yml` is not trusted, or the policies do not load
 */
export async function agentPolicies(
  workspace: string,
  env: NodeJS.ProcessEnv,
  version: string,
): Promise<AgentPolicies> {
  const deployment = join(workspace, DEPLOYMENT_FILE);
  let deploymentHash: string | undefined;
  if (exists(deployment)) {
    let hashed;
    try {
      hashed = readHashed(deployment);
    } catch (error) {
      throw new PolicyLoadError(`${deployment} cannot be read: ${(error as Error).message}`);
    }
    // The hook runs none of the programs the file names (the agent runs its own tools), so only the file's own
    // standing is checked here: `chat` and `acp`, which start them, check those too.
    const { status } = trustStatus(hashed, env, []);
    if (status !== 'trusted') {
      const why =
        status === 'changed'
          ? 'has changed since you trusted it'
          : status === 'outdated'
            ? 'was trusted by an older dsh-mode that did not record the programs it runs'
            : 'is not trusted';
      throw new PolicyLoadError(
        `${deployment} ${why}, so its policies are not used and every call is denied outside the default mode; review it, then run: dsh-mode trust cordis.yml`,
      );
    }
    deploymentHash = hashed.sha256;
  }
  const file = recordPath(workspace, env);
  const kept = readRecord(file, workspace, version, deploymentHash);
  if (kept !== undefined) return { policies: kept.policies, source: kept.source, kept: true };
  const { readDeployment } = await import('./policies.js');
  const read = await readDeployment(workspace);
  writeRecord(file, workspace, version, read);
  return { policies: compilePolicies(read.documents), source: read.source, kept: false };
}

/**
 * Where a workspace's record is kept.
 * @param workspace the workspace
 * @param env the environment (`XDG_CACHE_HOME`, `HOME`)
 */
export function recordPath(workspace: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  const cache = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache');
  const key = createHash('sha256').update(workspace).digest('hex').slice(0, 32);
  return join(cache, 'dsh-mode', 'deployments', `${key}.json`);
}

/** The record this process compiled last: its text, and what it compiled to. */
let last: { identity: string; text: string; record: Record_; policies: CompiledPolicySet } | undefined;

function readRecord(
  file: string,
  workspace: string,
  version: string,
  deploymentHash: string | undefined,
): { policies: CompiledPolicySet; source: string } | undefined {
  let text: string;
  let record: Record_;
  try {
    // The same file as last time (it is replaced by a rename, never written in place) is not read again.
    const stats = statSync(file);
    const identity = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    text = last?.identity === identity ? last.text : readFileSync(file, 'utf8');
    record = last?.text === text ? last.record : (JSON.parse(text) as Record_);
    if (last?.text === text) last.identity = identity;
  } catch {
    return undefined;
  }
  try {
    if (record.format !== FORMAT || record.version !== version || record.workspace !== workspace)
      return undefined;
    const deployment = join(workspace, DEPLOYMENT_FILE);
    const recordedDeployment = record.files.find((f) => f.path === deployment);
    if ((recordedDeployment?.sha256 ?? undefined) !== deploymentHash) return undefined;
    for (const f of record.files)
      if (f !== recordedDeployment && sha256Of(f.path) !== f.sha256) return undefined;
    for (const folder of record.folders)
      if (listing(folder.path).join('\0') !== folder.names.join('\0')) return undefined;
    // A long-lived process (`dsh-mode serve`, OpenCode's plugin) compiles a record once, and after that checks
    // its sources on every call as a hook process does.
    if (last?.text !== text)
      last = { identity: '', text, record, policies: compilePolicies(record.documents.map(revive)) };
    return { policies: last.policies, source: record.source };
  } catch {
    return undefined;
  }
}

function writeRecord(file: string, workspace: string, version: string, read: ReadDeployment): void {
  const record: Record_ = {
    format: FORMAT,
    version,
    workspace,
    source: read.source,
    files: read.files.map((path) => ({ path, sha256: sha256Of(path) })),
    folders: read.folders.map((path) => ({ path, names: listing(path) })),
    documents: read.documents.map(serialize),
  };
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // A cache that cannot be written costs time, never a decision: the policies were read the long way.
  }
}

function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function listing(path: string): string[] {
  try {
    return readdirSync(path).sort();
  } catch {
    return ['<unreadable>'];
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    // A dangling link or an unreadable entry counts: the trust decision refuses it, it is not skipped.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * A document as kept: its value and, for every JSON path in it, where the rule at that path is reported (the
 * key's position where the parser knows it, else the value's), which is all compile asks `locate` and `keyRange`.
 */
export function serialize(source: SourceDocument): Record_['documents'][number] {
  const refs: Array<[string, number, number]> = [];
  const walk = (value: unknown, path: JsonPath): void => {
    const range = source.keyRange?.(path) ?? source.locate(path);
    if (range) refs.push([JSON.stringify(path), range.start.line, range.start.column]);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  walk(source.document, []);
  return { file: source.file, document: source.document, refs };
}

/** A kept document as a {@link SourceDocument}: `locate` and `keyRange` answer from its positions. */
export function revive(kept: Record_['documents'][number]): SourceDocument {
  const refs = new Map(kept.refs.map(([path, line, column]) => [path, { line, column }]));
  const at = (path: JsonPath): Range | undefined => {
    for (let n = path.length; n >= 0; n--) {
      const start = refs.get(JSON.stringify(path.slice(0, n)));
      if (start) return { start, end: start };
    }
    return undefined;
  };
  return { file: kept.file, document: kept.document, locate: at, keyRange: at };
}
