/**
 * Loading policy sources: the built-in plan policy, then files and folders in the order given (DESIGN.md
 * section 2, "Load order"), each parsed and validated. With read-file.ts, the only module of src/compile that
 * does I/O.
 *
 * Contract: never throws for bad input. A folder contributes its `*.yaml`, `*.yml` and `*.json` files, not
 * recursively, sorted by name; a real path is loaded once; a missing or unreadable path, or one that is not a regular file or folder (a FIFO, a device), is an `io` error. A file
 * with any error is refused (it contributes no document) and all of its diagnostics are reported. `file` is the
 * path as the user gave it (folder entries: the folder as given joined with the entry name).
 * @module
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasErrors, makeDiagnostic, type LoadDiagnostic } from './diagnostics.js';
import { MAX_POLICY_BYTES, parsePolicyText, type ParsedDocument } from './parse.js';
import { FileRefusedError, readRegularFile } from './read-file.js';
import type { SourceDocument } from './types.js';
import { validatePolicy } from './validate.js';

export type { SourceDocument };

/** Absolute path of the built-in plan policy (policies/plan.yaml of the package, from src/ or dist/). */
export const BUILTIN_PLAN_PATH: string = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../policies/plan.yaml',
);

/** What loading produced: the valid documents in load order, every diagnostic, and the files read. */
export interface LoadResult {
  documents: SourceDocument[];
  diagnostics: LoadDiagnostic[];
  /** Every file considered, in load order, as reported (refused ones included). */
  files: string[];
}

/** Options of {@link loadPolicySources}. */
export interface LoadOptions {
  /** Load the built-in plan policy first (default true). */
  builtin?: boolean;
}

const POLICY_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * Loads policy files and folders, the built-in plan policy first.
 * @param paths files or folders, as the user gave them (relative ones resolve from the current folder)
 * @returns the valid documents, all diagnostics, and the files considered
 */
export async function loadPolicySources(
  paths: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const result: LoadResult = { documents: [], diagnostics: [], files: [] };
  const seen = new Set<string>();
  const queue: string[] = [];
  if (options.builtin !== false) queue.push(BUILTIN_PLAN_PATH);
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      result.diagnostics.push(ioDiagnostic(path, error));
      continue;
    }
    if (!info.isDirectory()) {
      queue.push(path);
      continue;
    }
    try {
      const entries = await readdir(path, { withFileTypes: true });
      const names = entries
        .filter((e) => !e.isDirectory() && POLICY_EXTENSIONS.has(extname(e.name).toLowerCase()))
        .map((e) => e.name)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      // Reported as given (DESIGN.md section 2): `join` would normalise `./pol` to `pol`.
      const folder = path.endsWith('/') || path.endsWith(sep) ? path : path + sep;
      for (const name of names) queue.push(folder + name);
    } catch (error) {
      result.diagnostics.push(ioDiagnostic(path, error));
    }
  }
  // Paths are loaded in order after folders were listed, so load order is exactly the order given.
  for (const file of queue) {
    let real: string;
    try {
      real = await realpath(file);
    } catch (error) {
      result.diagnostics.push(ioDiagnostic(file, error));
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    result.files.push(file);
    const text = await readPolicyFile(file, result.diagnostics);
    if (text === undefined) continue;
    const loaded = loadPolicyText(text, file);
    for (const d of loaded.diagnostics) result.diagnostics.push(d);
    for (const d of loaded.documents) result.documents.push(d);
  }
  return result;
}

/**
 * Parses and validates one inline document (a config `modes:` entry, a test fixture).
 * @param file where the text came from, or null
 * @returns the same shape as {@link loadPolicySources}, for one document (none when refused)
 */
export function loadPolicyText(text: string, file: string | null): LoadResult {
  const parsed = parsePolicyText(text, file);
  const { document, diagnostics } = validatePolicy(parsed);
  const files = file === null ? [] : [file];
  if (!document || hasErrors(diagnostics)) return { documents: [], diagnostics, files };
  return { documents: [toSource(parsed, document)], diagnostics, files };
}

function toSource(parsed: ParsedDocument, document: SourceDocument['document']): SourceDocument {
  return { file: parsed.file, document, locate: parsed.locate, keyRange: parsed.keyRange };
}

/** Reads a policy file as strict UTF-8, refusing special files and oversize files before reading them whole. */
async function readPolicyFile(file: string, diagnostics: LoadDiagnostic[]): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(file, MAX_POLICY_BYTES);
  } catch (error) {
    if (error instanceof FileRefusedError && error.reason === 'too-large') {
      diagnostics.push(
        makeDiagnostic(
          'too-large',
          'error',
          `policy ${error.message} (1 MiB)`,
          file,
          [],
          { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } },
          'split the policy into several files of the same mode',
        ),
      );
    } else {
      diagnostics.push(ioDiagnostic(file, error));
    }
    return undefined;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    diagnostics.push(
      makeDiagnostic('syntax', 'error', 'policy is not valid UTF-8 text', file, [], {
        start: { line: 1, column: 1 },
        end: { line: 1, column: 1 },
      }),
    );
    return undefined;
  }
}

function ioDiagnostic(file: string, error: unknown): LoadDiagnostic {
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
