/**
 * The package's version, for `--version`, the SARIF log and the ACP handshake: read once from package.json,
 * which is two folders above this module in both src/ and dist/.
 * @module
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The version in package.json.
 * @returns it, or `0.0.0` when a relocated bundle has no package.json beside it
 */
export function packageVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
      };
      cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
