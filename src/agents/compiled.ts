/**
 * The compiled deployment of a workspace: THE way the hook gets its policies. A hook process starts before every
 * tool call, and reading the policies the long way (parsing YAML, validating against the schema) costs more than
 * starting node does; so the validated documents of a workspace's policies are kept, in the user's cache folder,
 * with what they were read from, and each hook call checks that nothing they were read from has changed before it
 * compiles them (the same `compilePolicies` every other command uses).
 *
 * What is kept: `$XDG_CACHE_HOME/dsh-mode/deployments/<hash of the workspace's path>.json` (default `~/.cache`),
 * holding the workspace, the package version, every file read (its path and text: the built-in plan, `cordis.yml`,
 * every policy file), the listing of every policy folder the deployment names, and the documents with the positions
 * their rules are reported at. It is outside the project, so a cloned repository cannot ship one.
 *
 * When it is used: the workspace and the package version are these, every file still reads as its recorded text,
 * every folder still has its listing, and `cordis.yml`, read once for the trust decision, has the text recorded.
 * Otherwise (and when there is none, or it cannot be read) the policies are read the long way (`policies.ts`,
 * loaded only then) and the record is replaced. `dsh-mode install` writes it first. A record that does not parse is
 * replaced, never trusted: the documents it holds are used only when the texts they were read from are unchanged,
 * and only the user can write the cache. Texts are compared whole rather than hashed: as exact, and a hook process
 * for a workspace without `cordis.yml` then never loads `node:crypto` (~3 ms of its start).
 * @module
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { readHashed, trustStatus } from '../apps/trust.js';
import { readRegularFileSync } from '../files/read-file.js';
import { compilePolicies, type CompiledPolicySet } from '../compile/runtime.js';
import type { JsonPath, PolicyDocument, Range, SourceDocument } from '../compile/types.js';
import { DEPLOYMENT_FILE, PolicyLoadError, type ReadDeployment } from './policy-error.js';

export { DEPLOYMENT_FILE, PolicyLoadError } from './policy-error.js';

/** The record's format; a record of another format is replaced. */
const FORMAT = 3;
/** Past every loader's own cap: a source this large was never recorded. */
const MAX_SOURCE_BYTES = 16 * 1024 * 1024;
/**
 * How long before a load a source's change still counts as during it: Linux stamps a change from a clock that
 * runs up to a tick (at most 10 ms) behind. File systems with coarser times are not covered.
 */
const CHANGE_SLACK_MS = 20;
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
  files: Array<{ path: string; text: string }>;
  folders: Array<{ path: string; names: string[] }>;
  documents: Array<{ file: string | null; document: PolicyDocument; positions: Positions }>;
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
  let deploymentText: string | undefined;
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
    deploymentText = hashed.text;
  }
  const file = recordPath(workspace, env);
  const kept = readRecord(file, workspace, version, deploymentText);
  if (kept !== undefined) return { policies: kept.policies, source: kept.source, kept: true };
  const { readDeployment } = await import('./policies.js');
  // A source whose change time is not before this (less a clock tick) may have changed while it was read.
  const since = Date.now() - CHANGE_SLACK_MS;
  const read = await readDeployment(workspace);
  // The long way reads `cordis.yml` again: what it read must be the text that was trusted.
  if (deploymentText !== undefined) {
    let same = false;
    try {
      same = textOf(deployment) === deploymentText && !changedSince(deployment, workspace, since);
    } catch {
      // unreadable now: not the trusted text
    }
    if (!same)
      throw new PolicyLoadError(
        `${deployment} changed while its policies were read, so they are not used for this call: it is denied outside the default mode`,
      );
  }
  writeRecord(file, workspace, version, read, since);
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
  return join(cache, 'dsh-mode', 'deployments', `${pathKey(workspace)}.json`);
}

/**
 * A file name for a workspace's record: FNV-1a over the path's UTF-16 units, two 32-bit lanes. Not a security
 * boundary (the record names its workspace, and a record of another is replaced), so no `node:crypto`.
 */
function pathKey(workspace: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < workspace.length; i++) {
    const c = workspace.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The record this process compiled last: its text, and what it compiled to. */
let last: { identity: string; text: string; record: Record_; policies: CompiledPolicySet } | undefined;

function readRecord(
  file: string,
  workspace: string,
  version: string,
  deploymentText: string | undefined,
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
    if (recordedDeployment?.text !== deploymentText) return undefined;
    for (const f of record.files) if (f !== recordedDeployment && textOf(f.path) !== f.text) return undefined;
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

function writeRecord(
  file: string,
  workspace: string,
  version: string,
  read: ReadDeployment,
  since: number,
): void {
  try {
    // The texts are read again after the load, and only then is it checked that nothing they depend on changed
    // since the load began: otherwise a source edited (or a link swapped) while the load ran would be recorded
    // with its new text beside the documents of its old one. Such a record is not written; the next call reads
    // the long way again.
    const files = read.files.map((path) => ({ path, text: textOf(path) }));
    const folders = read.folders.map((path) => ({ path, names: listing(path) }));
    if ([...read.files, ...read.folders].some((path) => changedSince(path, workspace, since))) return;
    const record: Record_ = {
      format: FORMAT,
      version,
      workspace,
      source: read.source,
      files,
      folders,
      documents: read.documents.map(serialize),
    };
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temp, JSON.stringify(record), { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch {
    // A cache that cannot be written costs time, never a decision: the policies were read the long way.
  }
}

/**
 * Whether what `path` reads may have changed since `since` (a change time at or after it): the path itself (a link
 * is its own entry), every link or folder on its way down from the workspace (a link swapped on the way), and the
 * file or folder it leads to. For a path outside the workspace (the built-in plan, a policy folder named by an
 * absolute path), the way to it is not checked: its folders change with everything else in them.
 */
function changedSince(path: string, workspace: string, since: number): boolean {
  const entries = [path];
  for (let at = dirname(path); at.startsWith(workspace + sep); at = dirname(at)) entries.push(at);
  if (entries.some((entry) => lstatSync(entry).ctimeMs >= since)) return true;
  return statSync(realpathSync(path)).ctimeMs >= since;
}

/**
 * A source's text as the loaders decode it (UTF-8, a byte-order mark kept, so equal texts are equal bytes), from
 * a regular file only (a FIFO put in its place never hangs).
 * @throws TypeError for bytes that are not UTF-8 (the loaders refuse the file too)
 */
function textOf(path: string): string {
  const bytes = readRegularFileSync(path, MAX_SOURCE_BYTES);
  if (!isUtf8(bytes)) throw new TypeError(`${path} is not UTF-8`);
  return bytes.toString('utf8');
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
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    // A dangling link counts as absent (ENOENT); an unreadable entry counts: the trust decision refuses it.
    return true;
  }
}

/**
 * Where each value of a kept document is reported, in the document's own shape: `[line, column, children]`, the
 * children keyed as the value's (line 0: no position of its own). A rule's position is the deepest one on its
 * path, which is all compile asks `locate` and `keyRange`.
 */
type Positions = [line: number, column: number, children?: Record<string, Positions> | Positions[]];

/** A document as kept: its value, and where each rule in it is reported (the key's position where known). */
function serialize(source: SourceDocument): Record_['documents'][number] {
  const walk = (value: unknown, path: JsonPath): Positions => {
    const range = source.keyRange?.(path) ?? source.locate(path);
    const node: Positions = [range?.start.line ?? 0, range?.start.column ?? 0];
    if (Array.isArray(value)) node[2] = value.map((v, i) => walk(v, [...path, i]));
    else if (typeof value === 'object' && value !== null)
      node[2] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k])]));
    return node;
  };
  return { file: source.file, document: source.document, positions: walk(source.document, []) };
}

/** A kept document as a {@link SourceDocument}: `locate` and `keyRange` answer from its positions. */
function revive(kept: Record_['documents'][number]): SourceDocument {
  const at = (path: JsonPath): Range | undefined => {
    let node: Positions | undefined = kept.positions;
    let found: Positions | undefined;
    for (let i = 0; node !== undefined; i++) {
      if (node[0] > 0) found = node;
      if (i === path.length) break;
      const children: Record<string, Positions> | Positions[] | undefined = node[2];
      const key = path[i]!;
      node =
        children !== undefined && Object.hasOwn(children, key)
          ? (children as Record<string, Positions>)[key]
          : undefined;
    }
    if (found === undefined) return undefined;
    const start = { line: found[0], column: found[1] };
    return { start, end: start };
  };
  return { file: kept.file, document: kept.document, locate: at, keyRange: at };
}
