/**
 * Vitest global setup: builds once before the run as `npm run build` does (scripts/build.mjs: the schemas'
 * validators, which tests on `src/` import too, then `dist/` and the CLI bundle, because the CLI tests run the real
 * binary, `bin/dsh-mode.mjs` → `dist/bundle/cli.js`, as a child process). The build is skipped when the bundle is
 * newer than every source, schema, build script and built module (a repeated run costs nothing; a `dist/` that tsc
 * alone rebuilt gets its bundle remade). Type errors do not stop the run (`npm run typecheck` owns them, and other
 * areas may be mid-change); a build that leaves no bundle does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const BUNDLE = join(root, 'dist/bundle/cli.js');
/** What the build reads, and what `tsc` alone writes: any of it newer than the bundle means a build. */
const INPUTS: readonly [folder: string, pattern: RegExp][] = [
  ['src', /(?<!\.d)\.ts$/],
  ['schema', /\.json$/],
  ['scripts', /^(build|gen-validators)\.mjs$/],
  ['dist', /^(?!bundle\/).*\.js$/],
];

/** True when the bundle is missing or older than some input. */
function stale(): boolean {
  if (!existsSync(BUNDLE)) return true;
  const built = statSync(BUNDLE).mtimeMs;
  return INPUTS.some(([folder, pattern]) =>
    readdirSync(join(root, folder), { recursive: true })
      .map(String)
      .filter((file) => pattern.test(file.split('\\').join('/')))
      .some((file) => statSync(join(root, folder, file)).mtimeMs > built),
  );
}

export default function setup(): void {
  if (stale()) build();
  if (!existsSync(BUNDLE)) throw new Error('global-setup: the build left no dist/bundle/cli.js');
}

function build(): void {
  const run = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--keep-going'], {
    cwd: root,
    encoding: 'utf8',
  });
  const said = `${run.stdout}${run.stderr}`.trim();
  if (run.status !== 0 || said !== '') {
    const how = run.status === 0 ? 'reported (the build went on)' : `failed (exit ${run.status})`;
    process.stderr.write(`global-setup: the build ${how}:\n${said.slice(0, 2000)}\n`);
  }
}
