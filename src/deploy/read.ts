/**
 * Reading a deployment (`cordis.yml`): a YAML list of plugin entries `- id / name / config`. The text goes
 * through the policy parser (positions, hostile-input limits, duplicate keys, keys that collide once read) and
 * then through cordis.schema.json's precompiled validator, which checks every entry's config, the mode plugin's
 * inline documents included. Every problem is a {@link Diagnostic} with the file's line and column; a deployment
 * with any error has no entries (it is refused whole, never half-started). Nothing starts here, and the file is
 * never written.
 *
 * The config keys that hold paths (`host.workspace`, `scripted.script`) are resolved from `baseDir`, the folder
 * of the file; an `mcp` server's `command` and `cwd` only when written as `./…` or `../…` (a bare command is
 * looked up on `PATH`, any other relative `cwd` is the workspace's).
 * @module
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  describePath,
  hasErrors,
  parsePolicyText,
  schemaDiagnostics,
  sortDiagnostics,
} from '../compile/index.js';
import { FileRefusedError, readRegularFileSync } from '../files/read-file.js';
import type { Diagnostic, JsonPath, Range } from '../compile/types.js';
import { validateDeployment } from './config-validators.generated.js';
import { diagnostic } from './diagnostic.js';

/** One entry of a deployment, its config paths resolved. */
export interface DeploymentEntry {
  /** The entry's `id`, or its name when it has none. */
  id: string;
  name: string;
  config: Record<string, unknown>;
  /** The deployment file, as reported. */
  file: string;
  /** The folder relative paths resolve from (the file's folder). */
  baseDir: string;
  /** Where the entry's `name` is. */
  range: Range;
  /** The range of the node at a path inside `config` (its closest existing parent when the path is absent). */
  locate(path: JsonPath): Range | undefined;
  /** The range of the key at a path inside `config`, falling back to `locate`. */
  keyRange(path: JsonPath): Range | undefined;
}

/** A read deployment: its entries in file order, or none and the errors that refuse it. */
export interface Deployment {
  file: string;
  baseDir: string;
  entries: DeploymentEntry[];
  diagnostics: Diagnostic[];
}

/** The config keys of each plugin that hold paths. */
const PATH_KEYS: Readonly<Record<string, readonly string[]>> = { host: ['workspace'], scripted: ['script'] };

const START: Range = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

/** Largest deployment file read, in bytes (it may hold inline policies of up to 1 MiB each). */
export const MAX_DEPLOYMENT_BYTES = 8 * 1024 * 1024;

/**
 * Reads and checks a deployment file.
 * @param file the path as the user gave it (reported as given)
 * @returns the entries, or the diagnostics that refuse the file
 */
export function readDeployment(file: string): Deployment {
  const baseDir = dirname(resolve(file));
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_DEPLOYMENT_BYTES).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : error instanceof FileRefusedError
          ? `it ${error.message}`
          : (error as Error).message;
    return refused(file, baseDir, [
      diagnostic('io', `cannot read the deployment: ${reason}`, file, [], START),
    ]);
  }
  return parseDeployment(text, file, baseDir);
}

/**
 * Parses and checks deployment text.
 * @param text the YAML text
 * @param file the name used in diagnostics
 * @param baseDir the folder relative paths resolve from
 * @returns the entries, or the diagnostics that refuse the text
 */
export function parseDeployment(text: string, file: string, baseDir: string): Deployment {
  const parsed = parsePolicyText(text, file, { subject: 'deployment' });
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const data = parsed.data;
  if (data === undefined) return refused(file, baseDir, diagnostics);
  if (!validateDeployment(data)) {
    const errors = validateDeployment.errors ?? [];
    for (const d of schemaDiagnostics(errors, parsed, { describe: describeIn(data) })) diagnostics.push(d);
  }
  if (hasErrors(diagnostics)) return refused(file, baseDir, diagnostics);
  // Valid against the schema: a list of mappings with a known `name`, each config of its plugin's shape.
  const records = data as { id?: string; name: string; config?: Record<string, unknown> }[];
  const entries: DeploymentEntry[] = [];
  const ids = new Set<string>();
  records.forEach((record, index) => {
    const id = record.id ?? record.name;
    const at = (path: JsonPath) => parsed.locate([index, ...path]) ?? START;
    if (ids.has(id)) {
      const path = [index, record.id === undefined ? 'name' : 'id'];
      diagnostics.push(
        diagnostic(
          'duplicate-id',
          `duplicate plugin id \`${id}\``,
          file,
          path,
          at(path.slice(1)),
          'give one of them an `id`',
        ),
      );
      return;
    }
    ids.add(id);
    entries.push({
      id,
      name: record.name,
      config: resolveMcpPaths(
        record.name,
        resolvePaths(record.config ?? {}, PATH_KEYS[record.name] ?? [], baseDir),
        baseDir,
      ),
      file,
      baseDir,
      range: at(['name']),
      locate: (path) => parsed.locate([index, 'config', ...path]),
      keyRange: (path) => parsed.keyRange([index, 'config', ...path]),
    });
  });
  if (hasErrors(diagnostics)) return refused(file, baseDir, diagnostics);
  return { file, baseDir, entries, diagnostics: sortDiagnostics(diagnostics) };
}

function refused(file: string, baseDir: string, diagnostics: Diagnostic[]): Deployment {
  return { file, baseDir, entries: [], diagnostics: sortDiagnostics(diagnostics) };
}

/** Places in a deployment as people read them: `` `config.workspace` of entry 1 (`host`) ``. */
function describeIn(data: unknown): (path: JsonPath) => string {
  return (path) => {
    if (path.length === 0) return 'the deployment';
    const [index, ...rest] = path;
    if (typeof index !== 'number') return describePath(path);
    // The entry's name helps find it, unless the name is the place described.
    const name =
      Array.isArray(data) && rest[0] !== 'name'
        ? (data[index] as { name?: unknown } | null)?.name
        : undefined;
    const entry = `entry ${index + 1}${typeof name === 'string' ? ` (\`${name.slice(0, 40)}\`)` : ''}`;
    return rest.length === 0 ? entry : `${describePath(rest)} of ${entry}`;
  };
}

/** Resolves the path keys (strings, as the schema has checked) against `baseDir`. */
function resolvePaths(
  config: Record<string, unknown>,
  keys: readonly string[],
  baseDir: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of keys) {
    const value = out[key];
    if (typeof value === 'string' && !isAbsolute(value)) out[key] = resolve(baseDir, value);
  }
  return out;
}

/** An `mcp` entry's servers with their `./…` and `../…` `command` and `cwd` resolved against `baseDir`. */
function resolveMcpPaths(
  name: string,
  config: Record<string, unknown>,
  baseDir: string,
): Record<string, unknown> {
  const servers = config.servers as Record<string, Record<string, unknown>> | undefined;
  if (name !== 'mcp' || servers === undefined) return config;
  const local = (value: unknown): unknown =>
    typeof value === 'string' && /^\.\.?\//.test(value) ? resolve(baseDir, value) : value;
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, server] of Object.entries(servers)) {
    const resolved: Record<string, unknown> = { ...server, command: local(server.command) };
    if (server.cwd !== undefined) resolved.cwd = local(server.cwd);
    out[key] = resolved;
  }
  return { ...config, servers: out };
}

/**
 * A path for a reader that resolves from the process's folder (the deployment reader): as given when that is
 * `cwd`, so that it is reported as the user wrote it, else resolved from `cwd`.
 * @param path the path as given
 * @param cwd the folder the command runs in
 * @returns the path to pass on
 */
export function fromCwd(path: string, cwd: string): string {
  return isAbsolute(path) || resolve(cwd) === process.cwd() ? path : resolve(cwd, path);
}
