/**
 * The package as a consumer sees it: a scratch project in a temporary folder whose `node_modules/dsh-mode` is a
 * packed copy of this repository (a fresh build of `src/`, `package.json` with its `exports`, `policies/`,
 * `schema/`), type-checked by the repository's own `tsc` and imported by Node through the package name.
 *
 * - `dsh-mode`, `dsh-mode/compile` and `dsh-mode/engine` type-check under `moduleResolution: "nodenext"` with
 *   `skipLibCheck` off, and pull no cordis declaration into the program;
 * - `dsh-mode/engine/plugin` type-checks under `moduleResolution: "bundler"` (the requirement the README states);
 * - the root is a subset of the two entries and holds no plugin field or internal helper.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measured } from './config.js';

const root = resolve(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let base: string;
let consumer: string;

/** Builds `src/` into the packed copy (a private build: other work may rebuild `dist/` meanwhile). */
function packedCopy(pkg: string): void {
  mkdirSync(pkg, { recursive: true });
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(pkg, 'dist')], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch {
    // Type errors in another area's in-progress files still emit; the checks below fail on a missing entry.
  }
  // The schemas' validators are generated JavaScript beside their modules (the global setup's build wrote them).
  for (const file of readdirSync(join(root, 'src'), { recursive: true }).map(String)) {
    if (file.endsWith('.generated.js')) cpSync(join(root, 'src', file), join(pkg, 'dist', file));
  }
  cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
  for (const folder of ['policies', 'schema', 'node_modules'])
    symlinkSync(join(root, folder), join(pkg, folder));
}

/** Runs the repository's `tsc` on one config of the scratch project; returns its output and whether it passed. */
function typecheck(config: string): { ok: boolean; out: string; files: string[] } {
  try {
    const out = execFileSync(process.execPath, [tsc, '-p', config, '--listFiles'], {
      cwd: consumer,
      encoding: 'utf8',
    });
    return { ok: true, out, files: out.split('\n').filter((l) => l.length > 0) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}`, files: [] };
  }
}

const NODENEXT = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  skipLibCheck: false,
  noEmit: true,
};

const CONSUMER_TS = `import { authorize as rootAuthorize, compilePolicies as rootCompile, loadPolicySources } from 'dsh-mode';
import {
  compilePolicies,
  decideCall,
  defineRule,
  fsPathResolver,
  lexicalPathResolver,
  lintPolicies,
  lintRules,
  type CallDecision,
  type CompiledPolicySet,
  type Diagnostic,
  type PathResolver,
  type PolicyDocument,
} from 'dsh-mode/compile';
import { authorize, DEFAULT_MODE, EXIT_PLAN_MODE, PLAN_MODE, type Hints, type Verdict } from 'dsh-mode/engine';

const noBash = defineRule({
  id: 'no-bash',
  meta: {
    description: 'bash is never allowed',
    severity: 'warning',
    messages: { allowed: { text: '\`bash\` is {{decision}}', help: 'deny it' } },
    docs: { failing: 'mode: x\\ntools: { bash: allow }\\n', passing: 'mode: x\\n', fix: 'deny bash' },
  },
  check(context, report) {
    const { decision } = context.compose('mode').decide('bash');
    if (context.modeDocuments.at(-1) === context.source && decision !== 'deny') report({ messageId: 'allowed', data: { decision }, path: [] });
  },
});

const load = await loadPolicySources([]);
const policies: CompiledPolicySet = compilePolicies(load.documents);
const hints: Hints = { readOnly: true };
const verdict: Verdict = authorize(policies, PLAN_MODE, { name: 'read', hints });
const exit: Verdict = rootAuthorize(rootCompile(load.documents), DEFAULT_MODE, { name: EXIT_PLAN_MODE });
const resolvePath: PathResolver = fsPathResolver('.');
const byArgs: CallDecision = decideCall(policies.get(PLAN_MODE)!, { name: 'bash', arguments: { command: 'git log -5' } }, { resolvePath });
const lexical: CallDecision = decideCall(policies.get(PLAN_MODE)!, { name: 'read', arguments: { path: 'a' } }, { resolvePath: lexicalPathResolver() });
console.log(byArgs.decision, byArgs.subject, lexical.decision);
const found: Diagnostic[] = lintPolicies(load, { rules: [...Object.values(lintRules), noBash] });
const first: PolicyDocument | undefined = load.documents[0]?.document;
const where: string | null = verdict.rule.file;
console.log(verdict.decision, exit.decision, found.length, first?.mode, where);
`;

const PLUGIN_TS = `import ModePluginDefault, { apply, inject, ModePlugin, name, type ModeConfig } from 'dsh-mode/engine/plugin';
const config: ModeConfig = { policies: ['policies/'] };
console.log(ModePluginDefault === ModePlugin, apply, inject, name, config);
`;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'dsh-consumer-'));
  consumer = join(base, 'consumer');
  packedCopy(join(consumer, 'node_modules', 'dsh-mode'));
  writeFileSync(
    join(consumer, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }\n',
  );
  writeFileSync(join(consumer, 'main.ts'), CONSUMER_TS);
  writeFileSync(join(consumer, 'plugin.ts'), PLUGIN_TS);
  const tsconfig = (options: object, file: string) =>
    JSON.stringify({ compilerOptions: options, files: [file] });
  writeFileSync(join(consumer, 'tsconfig.json'), tsconfig(NODENEXT, 'main.ts'));
  writeFileSync(
    join(consumer, 'tsconfig.plugin.json'),
    tsconfig({ ...NODENEXT, target: 'ES2022', module: 'preserve', moduleResolution: 'bundler' }, 'plugin.ts'),
  );
}, 180_000);

afterAll(() => {
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe('the public API, as a consumer imports it', () => {
  it('dsh-mode, dsh-mode/compile and dsh-mode/engine type-check under nodenext without skipLibCheck, cordis-free', async () => {
    await measured('api', 'consumer: nodenext, strict, no skipLibCheck', null, async () => {
      expect(existsSync(join(consumer, 'node_modules/dsh-mode/dist/index.d.ts'))).toBe(true);
      const result = typecheck('tsconfig.json');
      expect(result.out.split('\n').filter((l) => l.includes('error TS'))).toEqual([]);
      expect(result.ok).toBe(true);
      // The program reached our declarations, and none of cordis's.
      expect(result.files.some((f) => f.endsWith('/dsh-mode/dist/engine/authorize.d.ts'))).toBe(true);
      expect(result.files.filter((f) => f.includes('/cordis/'))).toEqual([]);
      return { runs: 1, violations: 0, notes: 'three entries, a custom lint rule, authorize' };
    });
  }, 120_000);

  it('dsh-mode/engine/plugin type-checks under bundler resolution, cordis types included', async () => {
    await measured('api', 'consumer: the plugin entry under bundler resolution', null, async () => {
      const result = typecheck('tsconfig.plugin.json');
      expect(result.out.split('\n').filter((l) => l.includes('error TS'))).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.files.some((f) => f.includes('/cordis/'))).toBe(true);
      return { runs: 1, violations: 0 };
    });
  }, 120_000);

  it('the root is a small subset of the entries, without plugin fields or internals', async () => {
    await measured('api', 'consumer: what each entry exports at run time', null, async () => {
      const script = `
        const [r, c, e, p] = await Promise.all(
          ['dsh-mode', 'dsh-mode/compile', 'dsh-mode/engine', 'dsh-mode/engine/plugin'].map((s) => import(s)));
        console.log(JSON.stringify({
          root: Object.keys(r), compile: Object.keys(c), engine: Object.keys(e), plugin: Object.keys(p),
          same: r.authorize === e.authorize && r.compilePolicies === c.compilePolicies,
          pluginName: p.default.name,
        }));`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: consumer,
        encoding: 'utf8',
      });
      const got = JSON.parse(out) as Record<'root' | 'compile' | 'engine' | 'plugin', string[]> & {
        same: boolean;
        pluginName: string;
      };
      const entries = new Set([...got.compile, ...got.engine]);
      expect(got.root.filter((n) => !entries.has(n))).toEqual([]);
      expect(got.root).toEqual(expect.arrayContaining(['loadPolicySources', 'compilePolicies', 'authorize']));
      const internals = [
        'name',
        'inject',
        'apply',
        'ModePlugin',
        'editDistance',
        'suggest',
        'newId',
        'applyHost',
      ];
      for (const entry of [got.root, got.compile, got.engine]) {
        expect(entry.filter((n) => internals.includes(n))).toEqual([]);
      }
      expect(got.compile).toEqual(
        expect.arrayContaining([
          'loadPolicySources',
          'compilePolicies',
          'lintPolicies',
          'defineRule',
          'decideCall',
          'fsPathResolver',
          'lexicalPathResolver',
        ]),
      );
      expect(got.engine).toEqual(expect.arrayContaining(['authorize', 'DEFAULT_MODE', 'EXIT_PLAN_MODE']));
      expect(got.plugin).toEqual(expect.arrayContaining(['default', 'name', 'inject', 'apply']));
      expect(got.pluginName).toBe('mode');
      expect(got.same).toBe(true);
      return { runs: 4, violations: 0, notes: 'dsh-mode, /compile, /engine, /engine/plugin' };
    });
  });
});
