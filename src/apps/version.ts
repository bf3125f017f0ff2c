/**
 * The package's version, for `--version`, the SARIF log and the ACP handshake, and its repository, for the SARIF
 * log's links: read once from package.json, which is two folders above this module in both src/ and dist/.
 * @module
 */
import { readFileSync } from 'node:fs';

let cached: { version: string; repository: unknown } | undefined;

function manifest(): { version: string; repository: unknown } {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
        repository?: unknown;
      };
      cached = {
        version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
        repository: pkg.repository,
      };
    } catch {
      cached = { version: '0.0.0', repository: undefined };
    }
  }
  return cached;
}

/**
 * The version in package.json.
 * @returns it, or `0.0.0` when a relocated bundle has no package.json beside it
 */
export function packageVersion(): string {
  return manifest().version;
}

/**
 * The installed package's README, the documentation that came with this copy.
 * @returns its `file:` URI
 */
export function packageReadmeUri(): string {
  return new URL('../../README.md', import.meta.url).href;
}

/**
 * The web address of the package's GitHub repository, from package.json's `repository` field.
 * @returns `https://github.com/OWNER/REPO`, or undefined when there is no field or it names no GitHub repository
 */
export function packageRepository(): string | undefined {
  return githubWebUrl(manifest().repository);
}

/**
 * A `repository` field (`github:o/r`, `o/r`, a git or https URL, or `{url}`) as a GitHub web address.
 * @param field the field's value
 * @returns the address, or undefined for anything that is not a GitHub repository
 */
export function githubWebUrl(field: unknown): string | undefined {
  const raw = typeof field === 'object' && field !== null ? (field as { url?: unknown }).url : field;
  if (typeof raw !== 'string') return undefined;
  const m =
    /^(?:github:)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(raw) ??
    /^(?:git\+)?(?:https?|git|ssh):\/\/(?:git@)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
      raw,
    ) ??
    /^git@github\.com:([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(raw);
  return m ? `https://github.com/${m[1]}/${m[2]}` : undefined;
}
