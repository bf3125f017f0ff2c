/**
 * Trust in project deployments. A `cordis.yml` that `chat` or `acp` finds in the current folder may come from a
 * cloned repository, so it loads only when the user has trusted that file's exact content with `dsh-mode trust`.
 * A record is the file's real path and the sha256 of its bytes, kept in `trusted.json` in the user's config
 * folder (`$DSH_MODE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/dsh-mode`, else `~/.config/dsh-mode`), with the programs
 * inside the project that it runs (`programs.ts`: an MCP server's script, each by real path and sha256). A changed
 * file, or a changed, new or vanished program, is untrusted again. A record written before programs were recorded
 * (no `programs`) trusts nothing: the user trusts the file again, which records them.
 *
 * The found file is read once, through one descriptor: the bytes hashed are the bytes parsed, and the descriptor
 * must be the file at the real path recorded (a swap between the two is refused). The record file is replaced
 * atomically (temp file, fsync, rename) and never overwritten when it cannot be read: a malformed one is an
 * error naming its path.
 * @module
 */
import type * as Crypto from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ProgramRecord } from './programs.js';

/**
 * `node:crypto`, loaded when first used: the agents' hook process loads this module before every tool call, and in
 * a workspace without `cordis.yml` it hashes nothing (loading the module costs ~3 ms of that process's start).
 */
const crypto = (): typeof Crypto => createRequire(import.meta.url)('node:crypto') as typeof Crypto;

/** The largest deployment file read (a cordis.yml is a few hundred bytes). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** The largest record file read. */
const MAX_STORE_BYTES = 16 * 1024 * 1024;
const STORE_NAME = 'trusted.json';
const STORE_VERSION = 1;

/** One trusted file. */
export interface TrustRecord {
  /** The file's real path (symbolic links resolved). */
  path: string;
  /** The sha256 of its bytes, lowercase hex. */
  sha256: string;
  /** When it was trusted (ISO 8601). */
  trustedAt: string;
  /**
   * The programs inside the project it runs, as they were when trusted; absent in a record written before
   * programs were recorded, which trusts nothing.
   */
  programs?: ProgramRecord[];
}

/** A deployment file read for a trust decision: its text and the identity that was hashed. */
export interface HashedFile {
  /** The path as found or given (absolute). */
  file: string;
  realPath: string;
  sha256: string;
  text: string;
}

/**
 * How a found file stands against the records: `outdated` is a record without its programs (written before they
 * were recorded), `program-changed` a program it runs that is not as it was trusted.
 */
export type TrustStatus = 'trusted' | 'untrusted' | 'changed' | 'outdated' | 'program-changed';

/** A found file's standing, with the program that changed when one did. */
export type TrustCheck = { status: 'trusted' } | TrustRefusal;

/** Why a found file is not loaded. */
export type TrustRefusal =
  | { status: 'untrusted' | 'changed' | 'outdated' }
  | { status: 'program-changed'; program: string; how: 'changed' | 'appeared' | 'vanished' | 'new' };

/** A found deployment that is not trusted (exit code 1): the run loads nothing. */
export class UntrustedConfigError extends Error {
  override readonly name = 'UntrustedConfigError';
  readonly exitCode = 1;
  readonly status: Exclude<TrustStatus, 'trusted'>;
  /** The program that changed, for `program-changed`. */
  readonly program?: string;

  /**
   * @param file the found file
   * @param check why it is refused (a bare status for the file itself)
   * @param command how the user runs dsh-mode, for the command the message gives (`npx dsh-mode` through npx)
   */
  constructor(
    readonly file: string,
    check: 'untrusted' | 'changed' | 'outdated' | TrustRefusal,
    command = 'dsh-mode',
  ) {
    const found: TrustRefusal = typeof check === 'string' ? { status: check } : check;
    const head =
      found.status === 'program-changed'
        ? `${file} runs ${found.program}, which ${PROGRAM_CHANGE[found.how]} (a git pull or a checkout can change it), so nothing was loaded`
        : `${file} ${FILE_STATUS[found.status]}; it can widen plan mode, move the workspace, run programs or send your API key to another host, so nothing was loaded`;
    super(
      [
        head,
        `review it, then run: ${command} trust cordis.yml`,
        'or name it for this run only: --config cordis.yml',
      ].join('\n'),
    );
    this.status = found.status;
    if (found.status === 'program-changed') this.program = found.program;
  }
}

const FILE_STATUS: Record<Exclude<TrustStatus, 'trusted' | 'program-changed'>, string> = {
  changed: 'has changed since you trusted it',
  untrusted: 'is not trusted (a cordis.yml found in the current folder may come from a cloned repository)',
  outdated:
    'was trusted by an earlier dsh-mode, whose record does not cover the programs it runs (an MCP server script in the project)',
};

const PROGRAM_CHANGE: Record<Extract<TrustRefusal, { status: 'program-changed' }>['how'], string> = {
  changed: 'has changed since you trusted it',
  appeared: 'did not exist when you trusted it',
  vanished: 'has been removed since you trusted it',
  new: 'was not among its programs when you trusted it',
};

/** The record file cannot be read or is not ours (exit code 2); it is left as it is. */
export class TrustStoreError extends Error {
  override readonly name = 'TrustStoreError';
  readonly exitCode = 2;
  /**
   * @param file the record file
   * @param reason what is wrong with it
   */
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`the trust records ${file} cannot be used: ${reason}; fix or remove that file`);
  }
}

/**
 * The folder holding the records.
 * @param env the environment (`DSH_MODE_CONFIG_DIR`, `XDG_CONFIG_HOME`, `HOME`)
 * @returns an absolute path
 */
export function configDir(env: NodeJS.ProcessEnv): string {
  const own = env.DSH_MODE_CONFIG_DIR;
  if (own) return resolve(own);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'dsh-mode');
  return join(env.HOME || homedir(), '.config', 'dsh-mode');
}

/**
 * The record file.
 * @param env the environment
 * @returns `<config dir>/trusted.json`
 */
export function storePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), STORE_NAME);
}

/**
 * Reads a deployment file once and hashes what was read.
 * @param file the path (absolute or relative to the process's folder)
 * @returns its text, real path and hash
 * @throws Error with a reason when it is not a readable regular file within {@link MAX_CONFIG_BYTES}
 */
export function readHashed(file: string): HashedFile {
  const absolute = resolve(file);
  const realPath = realpathSync(absolute);
  const { bytes, dev, ino } = readRegular(realPath, MAX_CONFIG_BYTES);
  const now = statSync(realPath);
  if (now.dev !== dev || now.ino !== ino) throw new Error('the file was replaced while it was read');
  return {
    file: absolute,
    realPath,
    sha256: crypto().createHash('sha256').update(bytes).digest('hex'),
    text: bytes.toString('utf8'),
  };
}

/**
 * Reads the records.
 * @param file the record file
 * @returns the records; none when the file does not exist
 * @throws {@link TrustStoreError} when it exists but cannot be read or is malformed
 */
export function readStore(file: string): TrustRecord[] {
  let bytes: Buffer;
  try {
    bytes = readRegular(file, MAX_STORE_BYTES).bytes;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TrustStoreError(file, (error as Error).message);
  }
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new TrustStoreError(file, `it is not JSON (${(error as Error).message})`);
  }
  const shape = `expected {"version": ${STORE_VERSION}, "trusted": [{"path", "sha256", "trustedAt"}, …]}`;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new TrustStoreError(file, shape);
  const { version, trusted } = data as { version?: unknown; trusted?: unknown };
  if (version !== STORE_VERSION) {
    throw new TrustStoreError(file, `unknown version ${JSON.stringify(version) ?? 'undefined'} (${shape})`);
  }
  if (!Array.isArray(trusted)) throw new TrustStoreError(file, shape);
  return trusted.map((entry, index) => {
    const r = entry as Partial<Record<keyof TrustRecord, unknown>> | null;
    if (
      typeof r !== 'object' ||
      r === null ||
      typeof r.path !== 'string' ||
      !isAbsolute(r.path) ||
      typeof r.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(r.sha256) ||
      typeof r.trustedAt !== 'string'
    ) {
      throw new TrustStoreError(file, `record ${index + 1} is malformed (${shape})`);
    }
    const record: TrustRecord = { path: r.path, sha256: r.sha256, trustedAt: r.trustedAt };
    if (r.programs !== undefined) {
      if (!Array.isArray(r.programs) || !r.programs.every(isProgramRecord)) {
        throw new TrustStoreError(file, `record ${index + 1} has malformed \`programs\` (${shape})`);
      }
      record.programs = r.programs.map((p) => ({ path: p.path, sha256: p.sha256 }));
    }
    return record;
  });
}

function isProgramRecord(value: unknown): value is ProgramRecord {
  const p = value as Partial<Record<keyof ProgramRecord, unknown>> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.path === 'string' &&
    isAbsolute(p.path) &&
    (p.sha256 === null || (typeof p.sha256 === 'string' && /^[0-9a-f]{64}$/.test(p.sha256)))
  );
}

/**
 * Replaces the record file atomically: a reader sees the old records or the new ones, never a torn file.
 * @param file the record file
 * @param records the records to keep
 */
export function writeStore(file: string, records: readonly TrustRecord[]): void {
  const dir = resolve(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify({ version: STORE_VERSION, trusted: records }, null, 2)}\n`;
  const temp = join(dir, `.${STORE_NAME}.${process.pid}.${crypto().randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed or never written; nothing else to clean up.
    }
    throw error;
  }
  try {
    const dirFd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename itself is still atomic.
  }
}

/**
 * How a file stands against the records: its content, then each program it runs now against the programs recorded
 * (a recorded program that it no longer runs does not matter; one it runs that was not recorded does).
 * @param hashed the file as read
 * @param env the environment (where the records are)
 * @param programs the programs it runs now (`deploymentPrograms`), or a function that finds them: called only
 *   when the file itself is trusted, since finding them reads every program
 * @throws {@link TrustStoreError} when the records cannot be read
 */
export function trustStatus(
  hashed: HashedFile,
  env: NodeJS.ProcessEnv,
  programs: readonly ProgramRecord[] | (() => readonly ProgramRecord[]),
): TrustCheck {
  const record = readStore(storePath(env)).find((r) => r.path === hashed.realPath);
  if (record === undefined) return { status: 'untrusted' };
  if (record.sha256 !== hashed.sha256) return { status: 'changed' };
  if (record.programs === undefined) return { status: 'outdated' };
  const recorded = new Map(record.programs.map((p) => [p.path, p.sha256]));
  for (const program of typeof programs === 'function' ? programs() : programs) {
    if (!recorded.has(program.path)) return { status: 'program-changed', program: program.path, how: 'new' };
    const was = recorded.get(program.path);
    if (was === program.sha256) continue;
    const how = was === null ? 'appeared' : program.sha256 === null ? 'vanished' : 'changed';
    return { status: 'program-changed', program: program.path, how };
  }
  return { status: 'trusted' };
}

/**
 * Records a file as trusted, with the programs it runs (replacing an earlier record of the same real path).
 * @param hashed the file as read
 * @param env the environment
 * @param programs the programs inside the project it runs (`deploymentPrograms`)
 * @returns the new record and the record file
 */
export function addTrust(
  hashed: HashedFile,
  env: NodeJS.ProcessEnv,
  programs: readonly ProgramRecord[],
): { record: TrustRecord; store: string; previous?: TrustRecord } {
  const store = storePath(env);
  const records = readStore(store);
  const previous = records.find((r) => r.path === hashed.realPath);
  const record: TrustRecord = {
    path: hashed.realPath,
    sha256: hashed.sha256,
    trustedAt: new Date().toISOString(),
    programs: programs.map((p) => ({ path: p.path, sha256: p.sha256 })),
  };
  writeStore(store, [...records.filter((r) => r.path !== hashed.realPath), record]);
  return { record, store, ...(previous ? { previous } : {}) };
}

/**
 * Removes the record of a file.
 * @param file the file (it may no longer exist)
 * @param env the environment
 * @returns the removed record, if there was one
 */
export function removeTrust(file: string, env: NodeJS.ProcessEnv): TrustRecord | undefined {
  let path = resolve(file);
  try {
    path = realpathSync(path);
  } catch {
    // A deleted file is revoked by the path given.
  }
  const store = storePath(env);
  const records = readStore(store);
  const removed = records.find((r) => r.path === path);
  if (removed)
    writeStore(
      store,
      records.filter((r) => r !== removed),
    );
  return removed;
}

/** Reads a regular file through one descriptor, refusing FIFOs, devices and folders before any read blocks. */
function readRegular(path: string, limit: number): { bytes: Buffer; dev: number; ino: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > limit) throw new Error(`${info.size} bytes is over the limit of ${limit}`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw new Error(`the file grew over the limit of ${limit} bytes`);
      chunks.push(chunk.subarray(0, n));
    }
    return { bytes: Buffer.concat(chunks), dev: info.dev, ino: info.ino };
  } finally {
    closeSync(fd);
  }
}
