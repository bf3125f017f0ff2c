/**
 * Where policy text comes from: a {@link PolicySource} is a file or folder on disk, or `git:REV:path` (a file or
 * folder as it was at revision REV). Both follow one set of rules, kept here once: a folder contributes its
 * `*.yaml`, `*.yml` and `*.json` files, not recursively, sorted by name; a file over 1 MiB is refused before it
 * is read whole; text must be strict UTF-8. Every failure is a diagnostic naming the source; nothing throws.
 *
 * Git is reached through an injected {@link GitObjects} reader, so this layer starts no child process: the
 * command line supplies one that runs `git`, and a test or an embedder can supply another.
 * @module
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { makeDiagnostic, type LoadDiagnostic } from './diagnostics.js';
import { MAX_POLICY_BYTES } from './parse.js';

export { MAX_POLICY_BYTES };
import { FileRefusedError, readRegularFile } from '../../files/read-file.js';

/** One policy file's text, named as it is reported. */
export interface PolicyText {
  file: string;
  text: string;
}

/** What reading a source produced: its files in load order, and diagnostics for what could not be read. */
export interface SourceRead {
  /** Every file considered, in load order, including refused ones. */
  considered: string[];
  texts: PolicyText[];
  diagnostics: LoadDiagnostic[];
  /** Subfolders of a folder source that hold policy files: folders are not read recursively, so these were not. */
  unread?: string[];
}

/** A place policy files are read from. */
export interface PolicySource {
  /** The source as the user wrote it. */
  readonly spec: string;
  /**
   * Reads the source's policy files; never throws.
   * @param seen real paths already loaded, which are skipped (and to which this read adds its own), so that one
   * file reached twice loads once
   */
  read(seen?: Set<string>): Promise<SourceRead>;
}

/** A git answer: the value, or git's reason for refusing, as one lowercase phrase. */
export type GitAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

/** The git object store as a policy source needs it; objects are named `REV:./path`. */
export interface GitObjects {
  /** The object's type: `blob`, `tree`, or another git type. */
  type(object: string): Promise<GitAnswer<string>>;
  /** A blob's size in bytes. */
  size(object: string): Promise<GitAnswer<number>>;
  /** A blob's bytes. */
  read(object: string): Promise<GitAnswer<Uint8Array>>;
  /** The names of the blobs directly inside a tree. */
  list(object: string): Promise<GitAnswer<string[]>>;
}

/** The prefix that marks a git source. */
export const GIT_PREFIX = 'git:';

/** A parsed `git:REV:path`. */
export interface GitSpec {
  rev: string;
  /** The path as written, relative to the current folder; empty for the current folder itself. */
  path: string;
}

const POLICY_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

const START = { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } };

/**
 * Whether a folder entry is a policy file by its name.
 * @param name the entry's name
 * @returns true for `*.yaml`, `*.yml` and `*.json`, any case
 */
export function isPolicyFileName(name: string): boolean {
  return POLICY_EXTENSIONS.has(extname(name).toLowerCase());
}

/**
 * Parses `git:REV:path`; the revision ends at the first `:` after the prefix.
 * @param source what the user wrote
 * @returns the spec, or undefined when `source` is not a git source or has no revision
 */
export function parseGitSpec(source: string): GitSpec | undefined {
  if (!source.startsWith(GIT_PREFIX)) return undefined;
  const rest = source.slice(GIT_PREFIX.length);
  const colon = rest.indexOf(':');
  const rev = colon === -1 ? rest : rest.slice(0, colon);
  if (rev === '') return undefined;
  return { rev, path: colon === -1 ? '' : rest.slice(colon + 1).replace(/\/+$/, '') };
}

/**
 * The source a user's argument names: `git:REV:path` when a git reader is given, else a file or folder.
 * @param spec what the user wrote
 * @param options the folder relative paths resolve from, and the git reader, if git sources are accepted
 * @returns the source
 */
export function policySource(spec: string, options: { cwd?: string; git?: GitObjects } = {}): PolicySource {
  const git = options.git === undefined ? undefined : parseGitSpec(spec);
  return git === undefined ? fileSource(spec, options.cwd) : gitSource(git, options.git!);
}

/**
 * A file or folder on disk, reported as given.
 * @param path the path as the user wrote it
 * @param cwd the folder a relative path resolves from (default: the process's folder)
 * @returns the source
 */
export function fileSource(path: string, cwd?: string): PolicySource {
  const at = (p: string) => (cwd === undefined ? p : resolve(cwd, p));
  return {
    spec: path,
    async read(seen = new Set<string>()) {
      const result: SourceRead = { considered: [], texts: [], diagnostics: [] };
      let names: string[] | undefined;
      // Reported as given: `join` would normalise `./pol` to `pol`.
      const folder = path.endsWith('/') || path.endsWith(sep) ? path : path + sep;
      try {
        const info = await stat(at(path));
        if (info.isDirectory()) {
          const entries = await readdir(at(path), { withFileTypes: true });
          names = entries
            .filter((e) => !e.isDirectory() && isPolicyFileName(e.name))
            .map((e) => e.name)
            .sort(byCodeUnit);
          const subfolders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
          result.unread = await holdingPolicies(at(folder), subfolders, (n) => `${folder}${n}${sep}`);
        }
      } catch (error) {
        result.diagnostics.push(ioDiagnostic(path, error));
        return result;
      }
      if (names?.length === 0) return fail(result, noPolicyFiles(path, result.unread ?? []));
      for (const file of names === undefined ? [path] : names.map((n) => folder + n)) {
        let real: string;
        try {
          real = await realpath(at(file));
        } catch (error) {
          result.diagnostics.push(ioDiagnostic(file, error));
          continue;
        }
        if (seen.has(real)) continue;
        seen.add(real);
        result.considered.push(file);
        const text = await readPolicyFile(at(file), file, result.diagnostics);
        if (text !== undefined) result.texts.push({ file, text });
      }
      return result;
    },
  };
}

/**
 * A file or folder inside a git revision. The path is relative to the folder the reader runs in (it is asked for
 * as `REV:./path`); files are reported as `git:REV:path/name`, so a rule reference reads
 * `git:main:policies/plan.yaml:12:3`.
 * @param spec the parsed source
 * @param git the object reader
 * @returns the source
 */
export function gitSource(spec: GitSpec, git: GitObjects): PolicySource {
  const label = `${GIT_PREFIX}${spec.rev}:${spec.path}`;
  const object = `${spec.rev}:./${spec.path}`;
  return {
    spec: label,
    async read() {
      const result: SourceRead = { considered: [], texts: [], diagnostics: [] };
      const type = await git.type(object);
      if (!type.ok) return fail(result, gitError(label, type.error));
      let files: { label: string; object: string }[];
      if (type.value === 'blob') files = [{ label, object }];
      else if (type.value === 'tree') {
        const listing = await git.list(object);
        if (!listing.ok) return fail(result, gitError(label, listing.error));
        if (!listing.value.some(isPolicyFileName)) return fail(result, noPolicyFiles(label, []));
        files = listing.value
          .filter(isPolicyFileName)
          .sort(byCodeUnit)
          .map((name) =>
            spec.path === ''
              ? { label: `${GIT_PREFIX}${spec.rev}:${name}`, object: `${spec.rev}:./${name}` }
              : { label: `${label}/${name}`, object: `${object}/${name}` },
          );
      } else return fail(result, gitError(label, `is a ${type.value}, not a file or folder`));
      for (const file of files) {
        result.considered.push(file.label);
        const text = await readBlob(git, file.object, file.label, result.diagnostics);
        if (text !== undefined) result.texts.push({ file: file.label, text });
      }
      return result;
    },
  };
}

async function readBlob(
  git: GitObjects,
  object: string,
  label: string,
  diagnostics: LoadDiagnostic[],
): Promise<string | undefined> {
  const size = await git.size(object);
  if (!size.ok) return void diagnostics.push(gitError(label, size.error));
  if (size.value > MAX_POLICY_BYTES) {
    return void diagnostics.push(
      tooLargeDiagnostic(label, `is ${size.value} bytes: the limit is ${MAX_POLICY_BYTES} bytes`),
    );
  }
  const bytes = await git.read(object);
  if (!bytes.ok) return void diagnostics.push(gitError(label, bytes.error));
  return decodePolicy(bytes.value, label, diagnostics);
}

/** Reads a policy file as strict UTF-8, refusing special files and oversize files before reading them whole. */
async function readPolicyFile(
  path: string,
  file: string,
  diagnostics: LoadDiagnostic[],
): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, MAX_POLICY_BYTES);
  } catch (error) {
    diagnostics.push(
      error instanceof FileRefusedError && error.reason === 'too-large'
        ? tooLargeDiagnostic(file, error.message)
        : ioDiagnostic(file, error),
    );
    return undefined;
  }
  return decodePolicy(bytes, file, diagnostics);
}

function decodePolicy(bytes: Uint8Array, file: string, diagnostics: LoadDiagnostic[]): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    diagnostics.push(makeDiagnostic('syntax', 'error', 'policy is not valid UTF-8 text', file, [], START));
    return undefined;
  }
}

function tooLargeDiagnostic(file: string, why: string): LoadDiagnostic {
  return makeDiagnostic(
    'too-large',
    'error',
    `policy ${why} (1 MiB)`,
    file,
    [],
    START,
    'split the policy into several files of the same mode',
  );
}

/** The subfolders (by name) that directly hold a policy file, shown through `show`; unreadable ones are skipped. */
async function holdingPolicies(
  base: string,
  names: readonly string[],
  show: (name: string) => string,
): Promise<string[]> {
  const found: string[] = [];
  for (const name of [...names].sort(byCodeUnit)) {
    try {
      const inside = await readdir(resolve(base, name), { withFileTypes: true });
      if (inside.some((e) => !e.isDirectory() && isPolicyFileName(e.name))) found.push(show(name));
    } catch {
      // Not readable: not a folder we could have loaded either.
    }
  }
  return found;
}

/**
 * A folder that was named but holds no policy file: nothing checked must not look like all clean.
 * @param folder the folder as reported
 * @param unread its subfolders that hold policy files
 */
function noPolicyFiles(folder: string, unread: readonly string[]): LoadDiagnostic {
  return makeDiagnostic(
    'io',
    'error',
    `no policy files in \`${folder}\`: a folder contributes its *.yaml, *.yml and *.json files`,
    folder,
    [],
    START,
    unread.length > 0
      ? `subfolders are not read: name them, for example \`${unread[0]}\``
      : 'name policy files or a folder that holds some',
  );
}

function fail(result: SourceRead, diagnostic: LoadDiagnostic): SourceRead {
  result.diagnostics.push(diagnostic);
  return result;
}

function gitError(label: string, why: string): LoadDiagnostic {
  return makeDiagnostic('io', 'error', `cannot read \`${label}\`: ${why}`, label, []);
}

/**
 * The `io` diagnostic for a path that cannot be read.
 * @param file the path as reported
 * @param error what reading threw
 * @returns the diagnostic
 */
export function ioDiagnostic(file: string, error: unknown): LoadDiagnostic {
  const code = (error as NodeJS.ErrnoException)?.code;
  const why =
    code === 'ENOENT'
      ? 'no such file or folder'
      : error instanceof FileRefusedError
        ? `it ${error.message}`
        : lowerFirst((error as Error)?.message ?? String(error));
  return makeDiagnostic('io', 'error', `cannot read \`${file}\`: ${why}`, file, []);
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
