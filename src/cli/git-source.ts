/**
 * Policy sources inside git revisions, for `dsh-mode diff`: `git:REV:path` names a policy file or folder as it
 * was at revision REV (any revision git understands: `HEAD~1`, `origin/main`, a commit id, a tag). The path is
 * relative to the current folder, like a file path (it is passed to git as `REV:./path`); a folder contributes
 * its `*.yaml`, `*.yml` and `*.json` files, not recursively, sorted by name, exactly like a folder on disk.
 *
 * Reads go through `git cat-file` and `git ls-tree` child processes (no shell, arguments passed as an array), so
 * the working tree is never touched. Every failure (not a repository, an unknown revision, a missing path, an
 * oversize file) becomes an `io` or `too-large` diagnostic naming the source; nothing throws. Files are
 * reported as `git:REV:path/name`, so a rule reference reads `git:main:policies/plan.yaml:12:3`.
 * @module
 */
import { execFile } from 'node:child_process';
import { extname } from 'node:path';
import { makeDiagnostic, type LoadDiagnostic } from '../compile/diagnostics.js';
import { MAX_POLICY_BYTES } from '../compile/parse.js';

/** The prefix that marks a git source. */
export const GIT_PREFIX = 'git:';

/** A parsed `git:REV:path`. */
export interface GitSpec {
  rev: string;
  /** The path as written, relative to the current folder; empty for the current folder itself. */
  path: string;
}

/** One policy file read from a revision. */
export interface GitFile {
  /** The name reported for it: `git:REV:path`. */
  file: string;
  text: string;
}

const POLICY_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

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
 * Reads the policy files of a git source.
 * @param spec the parsed source
 * @param cwd the folder git runs in (the path is relative to it)
 * @returns the files in load order, and diagnostics for what could not be read
 */
export async function readGitSource(
  spec: GitSpec,
  cwd: string,
): Promise<{ files: GitFile[]; diagnostics: LoadDiagnostic[] }> {
  const label = `${GIT_PREFIX}${spec.rev}:${spec.path}`;
  const object = `${spec.rev}:./${spec.path}`;
  const type = await git(['cat-file', '-t', object], cwd);
  if (!type.ok) return { files: [], diagnostics: [ioError(label, type.error)] };
  if (type.stdout.trim() === 'blob') {
    const one = await readBlob(object, label, cwd);
    return 'text' in one
      ? { files: [{ file: label, text: one.text }], diagnostics: [] }
      : { files: [], diagnostics: [one] };
  }
  if (type.stdout.trim() !== 'tree') {
    return { files: [], diagnostics: [ioError(label, `is a ${type.stdout.trim()}, not a file or folder`)] };
  }
  const listing = await git(['ls-tree', '-z', object], cwd);
  if (!listing.ok) return { files: [], diagnostics: [ioError(label, listing.error)] };
  const names = listing.stdout
    .split('\0')
    .map((line) => /^\d+ blob [0-9a-f]+\t(.*)$/s.exec(line)?.[1])
    .filter(
      (name): name is string => name !== undefined && POLICY_EXTENSIONS.has(extname(name).toLowerCase()),
    )
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: GitFile[] = [];
  const diagnostics: LoadDiagnostic[] = [];
  for (const name of names) {
    const childLabel = spec.path === '' ? `${GIT_PREFIX}${spec.rev}:${name}` : `${label}/${name}`;
    const childObject = spec.path === '' ? `${spec.rev}:./${name}` : `${object}/${name}`;
    const one = await readBlob(childObject, childLabel, cwd);
    if ('text' in one) files.push({ file: childLabel, text: one.text });
    else diagnostics.push(one);
  }
  return { files, diagnostics };
}

async function readBlob(
  object: string,
  label: string,
  cwd: string,
): Promise<{ text: string } | LoadDiagnostic> {
  const size = await git(['cat-file', '-s', object], cwd);
  if (!size.ok) return ioError(label, size.error);
  const bytes = Number(size.stdout.trim());
  if (bytes > MAX_POLICY_BYTES) {
    return makeDiagnostic(
      'too-large',
      'error',
      `policy is ${bytes} bytes: the limit is ${MAX_POLICY_BYTES} bytes (1 MiB)`,
      label,
      [],
      { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } },
    );
  }
  const blob = await git(['cat-file', 'blob', object], cwd);
  if (!blob.ok) return ioError(label, blob.error);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(blob.bytes) };
  } catch {
    return makeDiagnostic('syntax', 'error', 'policy is not valid UTF-8 text', label, [], {
      start: { line: 1, column: 1 },
      end: { line: 1, column: 1 },
    });
  }
}

function ioError(label: string, why: string): LoadDiagnostic {
  return makeDiagnostic('io', 'error', `cannot read \`${label}\`: ${why}`, label, []);
}

type GitResult = { ok: true; stdout: string; bytes: Buffer } | { ok: false; error: string };

/** Runs git without a shell; the error is git's first stderr line, lowercased, or why git could not start. */
function git(args: readonly string[], cwd: string): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.quotePath=false', ...args],
      { cwd, encoding: 'buffer', maxBuffer: MAX_POLICY_BYTES * 4, windowsHide: true },
      (error, bytes, errBytes) => {
        if (!error) return resolve({ ok: true, stdout: bytes.toString('utf8'), bytes });
        const stderr = errBytes.toString('utf8');
        const spawnCode = (error as NodeJS.ErrnoException).code;
        if (spawnCode === 'ENOENT') return resolve({ ok: false, error: 'git is not installed' });
        const line = (stderr.split('\n').find((l) => l.trim() !== '') ?? error.message).replace(
          /^fatal: /,
          '',
        );
        resolve({ ok: false, error: line.charAt(0).toLowerCase() + line.slice(1) });
      },
    );
  });
}
