/**
 * The install that docs/guide.md shows, run as written: a copy of this checkout (without `node_modules`, `dist/`
 * or `.git`; its `node_modules` linked, as after `npm ci`), and the guide's first `sh` block runs in the copy:
 * it makes the project folder beside it, `npm pack` (whose `prepack` builds `dist/` from scratch) writes the
 * tarball there, `npm init -y` gives the project its `package.json`, and `npm install --save-dev` installs it. Once per run; every test below reads that one install. npm resolves
 * the package's dependencies from its cache first (`prefer-offline`), so the network is needed only for what
 * `npm ci` did not fetch.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
/** Top-level entries of the checkout that are not source: installed, built or local state. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', '.git', '.dsh']);
/** The pages that tell users where the installed package's files are. */
const PAGES = ['README.md', 'docs/guide.md', 'docs/editors.md', 'docs/apps.md', 'docs/ci.md'];

/** The first `sh` block of docs/guide.md: the install step. */
function guideInstallBlock(): string {
  const match = /^```sh\n([\s\S]*?)^```$/m.exec(readFileSync(join(root, 'docs/guide.md'), 'utf8'));
  if (!match) throw new Error('docs/guide.md has no sh block');
  return match[1]!;
}

/** The commands of a shell block, comments and blank lines dropped. */
function commands(block: string): string[] {
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** The README's tarball install: the `sh` block of its "From a tarball" item. */
function readmeTarballBlock(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = /\*\*From a tarball\*\*[\s\S]*?```sh\n([\s\S]*?)^\s*```$/m.exec(readme);
  if (!match) throw new Error('README.md has no "From a tarball" sh block');
  return match[1]!;
}

/** The schema path of the guide's first YAML modeline. */
function guideModeline(): string {
  const match = /\$schema=(\S+)/.exec(readFileSync(join(root, 'docs/guide.md'), 'utf8'));
  if (!match) throw new Error('docs/guide.md has no $schema= modeline');
  return match[1]!;
}

/** The environment of the npm children: the outer npm's script variables dropped, npm's own notices off. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_|^npm_config_(local_|global_)?prefix$/i.test(key)) continue;
    env[key] = value;
  }
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function sh(command: string, cwd: string): SpawnSyncReturns<string> {
  return spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8', env: npmEnv() });
}

/** Every file under a folder, relative and with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}

describe('installing from a tarball (docs/guide.md)', () => {
  let base: string;
  let project: string;
  let installed: string;
  let install: SpawnSyncReturns<string>;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'dsh-install-'));
    const checkout = join(base, 'dsh-mode');
    cpSync(root, checkout, {
      recursive: true,
      filter: (src) => !NOT_SOURCE.has(relative(root, src).split(sep)[0]!),
    });
    symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'));
    project = join(base, 'my-project');
    // `set -e`: a command that fails stops the block, as it stops a reader.
    install = sh(`set -e\n${guideInstallBlock()}`, checkout);
    installed = join(project, 'node_modules/dsh-mode');
  }, 300_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('shows the same commands in the README and the guide, less the two that make a new project', () => {
    const guide = commands(guideInstallBlock());
    expect(guide.filter((c) => /^(mkdir|npm init)\b/.test(c))).toEqual([
      'mkdir ../my-project',
      'npm init -y',
    ]);
    expect(commands(readmeTarballBlock())).toEqual(guide.filter((c) => !/^(mkdir|npm init)\b/.test(c)));
  });

  it('packs and installs with the commands the guide shows, and runs no install script', () => {
    expect(install.status, install.stderr).toBe(0);
    expect(existsSync(join(project, `dsh-mode-${manifest.version}.tgz`))).toBe(true);
    const deps = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      devDependencies?: Record<string, string>;
    };
    expect(deps.devDependencies?.['dsh-mode']).toBe(`file:dsh-mode-${manifest.version}.tgz`);
    // npm 11 lists a dependency's install-time scripts (`prepare` among them) as needing approval.
    expect(install.stdout + install.stderr).not.toMatch(/install-scripts|EBADENGINE/);
    const scripts = (
      JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      }
    ).scripts;
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts?.[event], event).toBeUndefined();
  });

  it('ships the built CLI, types, schemas and policies, and no source maps or sources', () => {
    const files = filesUnder(installed);
    for (const f of [
      'bin/dsh-mode.mjs',
      'dist/bundle/cli.js',
      'dist/cli/main.js',
      'dist/compile/language/policy-validator.generated.js',
      'dist/deploy/config-validators.generated.js',
      'dist/index.js',
      'dist/index.d.ts',
      'schema/policy.schema.json',
      'policies/plan.yaml',
      'LICENSE',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^(src|test)\//.test(f))).toEqual([]);
  });

  it('runs `npx dsh-mode lint` and `npx dsh-mode check plan write` in the project', () => {
    mkdirSync(join(project, 'policies'));
    writeFileSync(
      join(project, 'policies/audit.yaml'),
      [
        `# yaml-language-server: $schema=${guideModeline()}`,
        'mode: audit',
        'tools: { read: allow }',
        'default: deny',
        'tests:',
        '  - { tool: read, expect: allow }',
        '  - { tool: write, expect: deny }',
        '',
      ].join('\n'),
    );
    const lint = sh('npx dsh-mode lint', project);
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    writeFileSync(join(project, 'broken.yaml'), 'mode: audit\ntools: { read: maybe }\n');
    const refused = sh('npx dsh-mode lint broken.yaml', project);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain('invalid-decision');
    const check = sh('npx dsh-mode check plan write', project);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('mode `plan`, tool `write`: deny');
    expect(check.stdout).toContain('policies/plan.yaml:');
  }, 120_000);

  it('has every `node_modules/dsh-mode/…` file the docs name, with the checkout’s content', () => {
    const named = new Set<string>();
    for (const page of PAGES) {
      const text = readFileSync(join(root, page), 'utf8');
      for (const m of text.matchAll(/node_modules\/dsh-mode\/([\w.-]+(?:\/[\w.-]+)*\.\w+)/g))
        named.add(m[1]!);
    }
    expect(named).toContain('schema/policy.schema.json');
    for (const file of named) {
      expect(existsSync(join(installed, file)), file).toBe(true);
      expect(readFileSync(join(installed, file), 'utf8'), file).toBe(readFileSync(join(root, file), 'utf8'));
    }
    // The modeline the guide's policies carry resolves from the project's policies/ folder.
    expect(guideModeline()).toBe('../node_modules/dsh-mode/schema/policy.schema.json');
    expect(existsSync(resolve(project, 'policies', guideModeline()))).toBe(true);
  });
});
