/**
 * Vitest global setup: builds `dist/` once before the run as `npm run build` does (`tsc -p tsconfig.build.json`,
 * then the built-in snapshot), because the CLI tests run the real binary (`bin/dsh-mode.mjs` → `dist/cli/main.js`)
 * as a child process. tsc is skipped when every `src/**.ts` has a newer `dist/**.js`, and the snapshot when it is
 * newer than every `dist/**.js` and `policies/plan.yaml` (a repeated run costs nothing; a `dist/` that tsc alone
 * rebuilt gets its snapshot remade, whose findings come from the rules of the build). Type errors do not stop the
 * run (`npm run typecheck` owns them, and other areas may be mid-change); a build that emits no
 * `dist/cli/main.js` does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

const SNAPSHOT = join(root, 'dist/compile/builtin-snapshot.json');

/** True when some source file is newer than its built output (or has none). */
function stale(): boolean {
  const src = join(root, 'src');
  for (const file of readdirSync(src, { recursive: true }).map(String)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = join(root, 'dist', file.replace(/\.ts$/, '.js'));
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(src, file)).mtimeMs) return true;
  }
  return false;
}

/** True when the snapshot is missing, or older than the plan or than some built module. */
function staleSnapshot(): boolean {
  if (!existsSync(SNAPSHOT)) return true;
  const made = statSync(SNAPSHOT).mtimeMs;
  if (statSync(join(root, 'policies/plan.yaml')).mtimeMs > made) return true;
  const dist = join(root, 'dist');
  return readdirSync(dist, { recursive: true })
    .map(String)
    .some((file) => file.endsWith('.js') && statSync(join(dist, file)).mtimeMs > made);
}

export default function setup(): void {
  if (stale()) build();
  if (!existsSync(join(root, 'dist/cli/main.js')))
    throw new Error('global-setup: the build emitted no dist/cli/main.js');
  // The rest of `npm run build`: the built-in snapshot, from the modules built.
  if (staleSnapshot())
    execFileSync(process.execPath, [join(root, 'scripts/builtin-snapshot.mjs')], {
      cwd: root,
      stdio: 'pipe',
    });
}

function build(): void {
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: 'pipe',
      },
    );
  } catch (error) {
    const out = String((error as { stdout?: Buffer }).stdout ?? '');
    process.stderr.write(
      `global-setup: tsc reported errors (the build still emits):\n${out.slice(0, 2000)}\n`,
    );
  }
}
