/**
 * Compiles src/host, src/engine and src/compile (from their entry points) with tsc into a fresh folder under
 * `node_modules/.cache/` for the crash test's child processes, with `policies/` copied beside it so the built-in
 * plan policy resolves. A private build, not `dist/`: other areas rebuild `dist/` while they work, and a child
 * must not import a half-written module.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** Builds; returns the folder holding `host/index.js` and `engine/index.js`. */
export function buildEngine(): string {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const base = mkdtempSync(join(cache, 'dsh-reliability-'));
  const out = join(base, 'dist');
  cpSync(join(root, 'policies'), join(base, 'policies'), { recursive: true });
  try {
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        ...['--outDir', out, '--rootDir', join(root, 'src')],
        ...['--module', 'preserve', '--moduleResolution', 'bundler', '--target', 'es2022', '--lib', 'es2023'],
        ...['--types', 'node', '--skipLibCheck', '--strict', '--esModuleInterop', '--resolveJsonModule'],
        join(root, 'src/host/index.ts'),
        join(root, 'src/engine/index.ts'),
      ],
      { cwd: root, stdio: 'pipe' },
    );
  } catch {
    // Type errors in another area's in-progress files still emit; a missing entry point is caught by the child.
  }
  return out;
}
