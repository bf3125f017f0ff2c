/**
 * File paths for CI formats: GitHub annotations and SARIF want paths relative to the repository root with
 * forward slashes, while diagnostics carry the file as the user gave it (possibly absolute, possibly with `\`).
 * Pure: the working folder is a parameter.
 * @module
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILTIN_PLAN_LABEL, BUILTIN_PLAN_PATH, shownFile } from '../../compile/index.js';

export { BUILTIN_PLAN_LABEL, shownFile };

/**
 * A `JSON.stringify` replacer that names the built-in plan by its label wherever a report carries its path.
 * @returns the value, or the label for the built-in plan's path
 */
export function labelBuiltin(_key: string, value: unknown): unknown {
  return value === BUILTIN_PLAN_PATH ? BUILTIN_PLAN_LABEL : value;
}

/** The SARIF `uriBaseId` for paths relative to the folder the command ran in. */
export const SRCROOT = '%SRCROOT%';

/**
 * The path to show for a file: relative to `cwd` with `/` separators when it lies inside it, else as given.
 * @param file the file as given
 * @param cwd the working folder
 * @returns a display path
 */
export function displayPath(file: string, cwd: string): string {
  if (file === BUILTIN_PLAN_PATH) return BUILTIN_PLAN_LABEL;
  const relative = path.isAbsolute(file) ? path.relative(cwd, file) : path.normalize(file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    return file.split(path.sep).join('/');
  return relative.split(path.sep).join('/');
}

/**
 * A SARIF `artifactLocation`: a relative URI with `uriBaseId` for files inside `cwd`, else an absolute `file:` URI.
 * @param file the file as given
 * @param cwd the working folder
 * @returns the location object
 */
export function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  if (file === BUILTIN_PLAN_PATH) return { uri: BUILTIN_PLAN_LABEL };
  const absolute = path.resolve(cwd, file);
  const relative = path.relative(cwd, absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    return { uri: pathToFileURL(absolute).href };
  }
  return { uri: relative.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
}

/**
 * The `file:` URI of a folder, with the trailing slash SARIF requires of a base URI.
 * @param folder an absolute folder path
 * @returns the URI
 */
export function folderUri(folder: string): string {
  const href = pathToFileURL(folder).href;
  return href.endsWith('/') ? href : `${href}/`;
}
