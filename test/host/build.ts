/**
 * Compiles `src/host` (and the few modules it imports from `src/compile`) with tsc into a fresh folder under `node_modules/.cache/` (so its `cordis`, `ajv` and
 * `yaml` imports resolve), for tests that run real child processes on the built host. Independent of other
 * areas' in-progress files and of `dist/`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** Builds the host; returns the absolute path of the built `index.js`. */
export function buildHost(): string {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'dsh-host-'));
  const sources = readdirSync(join(root, 'src/host'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(root, 'src/host', file));
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/typescript/bin/tsc'),
      // The root is src/: the host imports the shared file reader from src/compile.
      ...['--outDir', out, '--rootDir', join(root, 'src')],
      ...['--module', 'preserve', '--moduleResolution', 'bundler', '--target', 'es2022', '--lib', 'es2023'],
      ...['--types', 'node', '--skipLibCheck', '--strict', '--esModuleInterop'],
      ...sources,
    ],
    { cwd: root, stdio: 'pipe' },
  );
  return join(out, 'host', 'index.js');
}
