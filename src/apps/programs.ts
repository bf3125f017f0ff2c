/**
 * The programs a deployment runs from inside its project: what trust records beside the `cordis.yml` itself, so
 * a server script that changes after `dsh-mode trust` (a `git pull`) is refused at the next start as a changed
 * `cordis.yml` is.
 *
 * What counts: every `mcp` server's `command` when it is a path, and each of its `args` that is a file or looks
 * like a path (it has a `.` or a `/`; an option such as `--port` never counts), resolved as the server will see
 * them (from the server's `cwd`, by default the workspace), that lie inside the project: the folder of the
 * `cordis.yml` or the workspace (`--workspace`, else `host.workspace`, else the folder the apps run in). Each is
 * recorded by its path with the sha256 of the bytes it reaches, or as absent (`sha256: null`), so a file that
 * appears later is a change too. A link the project ships counts where it stands, whatever it points to. A folder
 * is not recorded (its contents are not hashed), nor is a program found on `PATH` (`node`, `npx`, `uvx`) or any
 * path outside the project: those are the machine's, not the repository's. Only the named file is hashed, not the
 * modules it loads.
 * @module
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { DeploymentEntry } from '../deploy/index.js';
import { planServer, type McpServerConfig } from '../mcp/config.js';

/** One program of a trusted deployment. */
export interface ProgramRecord {
  /** Its absolute path, the links of its folders resolved (a link the project ships is recorded as itself). */
  path: string;
  /** The sha256 of its bytes, lowercase hex; null when no file was there. */
  sha256: string | null;
}

/** Where a deployment's relative paths lead. */
export interface ProgramRoots {
  /** The folder of the `cordis.yml`'s real path (the project it came with). */
  baseDir: string;
  /** The folder the apps run in (the default workspace). */
  cwd: string;
  /** `--workspace`, when the command line names one (it wins over the file's `host.workspace`). */
  workspace?: string;
}

/**
 * The programs inside the project that a deployment's entries run, sorted by path.
 * @param entries the parsed entries (their `./…` paths resolved by the deployment reader)
 * @param roots the deployment's folder, the apps' folder and any `--workspace`
 * @returns one record per path
 * @throws Error when a program inside the project exists but cannot be read
 */
export function deploymentPrograms(
  entries: readonly DeploymentEntry[],
  roots: ProgramRoots,
): ProgramRecord[] {
  const host = entries.find((e) => e.name === 'host');
  const named = host?.config.workspace;
  const workspace = resolve(roots.workspace ?? (typeof named === 'string' ? named : roots.cwd));
  const inside = [...new Set([roots.baseDir, realOrSelf(roots.baseDir), workspace, realOrSelf(workspace)])];
  const found = new Map<string, ProgramRecord>();
  for (const entry of entries.filter((e) => e.name === 'mcp')) {
    const servers = (entry.config.servers ?? {}) as Record<string, McpServerConfig>;
    for (const [name, server] of Object.entries(servers)) {
      const { launch } = planServer(name, server, workspace);
      // A bare command is looked up on PATH: the machine's program, not the project's.
      const paths = launch.command.includes('/') ? [{ path: launch.command, named: true }] : [];
      for (const arg of launch.args) {
        if (arg !== '' && !arg.startsWith('-')) paths.push({ path: arg, named: /[./]/.test(arg) });
      }
      for (const { path, named } of paths) {
        const record = programAt(resolve(launch.cwd, path), inside);
        // An argument that is no file and does not look like one (`5`, `stdio`) is an option's value.
        if (record !== undefined && (named || record.sha256 !== null)) found.set(record.path, record);
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The record of one candidate path, or undefined when it is outside the project or a folder. The record names the
 * path with its folders' links resolved but not its own: a link the project ships is recorded where it stands
 * and hashed by what it reaches, so a pull that points it elsewhere is a change, wherever it points.
 */
function programAt(path: string, roots: readonly string[]): ProgramRecord | undefined {
  const where = join(realOrSelf(dirname(path)), basename(path));
  let real: string | undefined;
  try {
    real = realpathSync(where);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const inside = (p: string) => roots.some((root) => within(root, p));
  if (!inside(where) && (real === undefined || !inside(real))) return undefined;
  if (real === undefined) return { path: where, sha256: null };
  const sha256 = hashFile(real);
  return sha256 === undefined ? undefined : { path: where, sha256 };
}

/** The sha256 of a regular file read through one descriptor; undefined for a folder or another kind of file. */
function hashFile(path: string): string | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
    }
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}
