/**
 * The built-in snapshot (src/compile/builtin-snapshot.ts) on the build, end to end: each test runs the binary of
 * a private copy of the package (`bin/`, `dist/` with its snapshot, `policies/`, `schema/`, `package.json`),
 * under `node_modules/.cache/` so that it resolves its dependencies, and records the modules each run loads.
 *
 * - With the snapshot, a lint of the built-in plan loads no parser, no validator and no lint rule, and every
 *   command prints exactly what it prints once the snapshot is removed (diagnostics' file:line:column included),
 *   for the shipped plan and for plans with findings.
 * - A plan edited after the build is never answered from the snapshot: the edit shows.
 * - A damaged snapshot is not used: every output is the one without a snapshot.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '../../src/compile/builtin-snapshot.js';
import { ROOT } from './run.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A private copy of the built package; returns its folder. */
function freshPackage(): string {
  if (!existsSync(join(ROOT, 'dist/compile/builtin-snapshot.json')))
    throw new Error('dist/ has no built-in snapshot: run `npm run build` (the global setup does)');
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const pkg = mkdtempSync(join(cache, 'dsh-snapshot-'));
  made.push(pkg);
  for (const part of ['bin', 'dist', 'policies', 'schema', 'package.json'])
    cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
  cpSync(join(ROOT, 'scripts/builtin-snapshot.mjs'), join(pkg, 'scripts/builtin-snapshot.mjs'));
  // Records each module the run loads, one URL a line, from the loader's own thread.
  writeFileSync(
    join(pkg, 'trace-hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function load(url, context, next) {\n' +
      '  appendFileSync(process.env.DSH_TRACE, `${url}\\n`);\n' +
      '  return next(url, context);\n' +
      '}\n',
  );
  writeFileSync(
    join(pkg, 'trace.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      "import Module, { register } from 'node:module';\n" +
      "register('./trace-hooks.mjs', import.meta.url);\n" +
      // `yaml` is required (CommonJS), which the hooks above do not see: it is loaded only to parse.
      'const load = Module._load;\n' +
      'Module._load = function (request, ...rest) {\n' +
      "  if (request === 'yaml') appendFileSync(process.env.DSH_TRACE, 'require:yaml\\n');\n" +
      '  return load.call(this, request, ...rest);\n' +
      '};\n',
  );
  return pkg;
}

const snapshotOf = (pkg: string): string => join(pkg, 'dist/compile/builtin-snapshot.json');

/** The format a snapshot file's header names. */
const readSnapshotFormat = (raw: string): unknown =>
  (JSON.parse(raw.slice(0, raw.indexOf('\n'))) as { format: unknown }).format;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The package's own modules the run loaded, relative to the package (`dist/compile/parse.js`), and
   * `require:yaml` when it loaded the YAML parser. */
  loaded: string[];
}

/** Runs the copy's binary in `cwd` (default: the copy itself). */
function run(pkg: string, args: string[], cwd = pkg): Run {
  const trace = join(mkdtempSync(join(pkg, 'trace-')), 'modules.txt');
  writeFileSync(trace, '');
  const result = spawnSync(
    process.execPath,
    ['--import', join(pkg, 'trace.mjs'), join(pkg, 'bin/dsh-mode.mjs'), ...args],
    { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', DSH_TRACE: trace } },
  );
  const prefix = new URL(`file://${pkg}/`).href;
  const loaded = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith(prefix) || u === 'require:yaml')
    .map((u) => (u.startsWith(prefix) ? u.slice(prefix.length) : u));
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, loaded };
}

/** What a run printed and how it ended. */
const output = ({ code, stdout, stderr }: Run) => ({ code, stdout, stderr });

const PARSER = ['dist/compile/parse.js', 'dist/compile/validate.js'];
/** Whether a run parsed YAML (a lint that runs its rules loads the parser's module, but parses nothing). */
const parsed = (r: Run): boolean => r.loaded.includes('require:yaml');

/** The commands whose output must not depend on the snapshot. */
const COMMANDS: string[][] = [
  ['lint', 'policies/plan.yaml'],
  ['lint', 'policies/plan.yaml', '--format', 'json'],
  ['lint'],
  ['check', 'plan', 'write'],
  ['check', 'plan', 'bash', '--args', '{"command":"git log --oneline -5"}'],
  ['matrix', '--tools', 'tools.json'],
];

/** Runs every command with the package's snapshot, then without it; returns both lists of runs. */
function withAndWithout(pkg: string, commands: string[][] = COMMANDS): { hit: Run[]; miss: Run[] } {
  writeFileSync(join(pkg, 'tools.json'), JSON.stringify([{ name: 'read' }, { name: 'bash' }]));
  const hit = commands.map((args) => run(pkg, args));
  const saved = readFileSync(snapshotOf(pkg));
  rmSync(snapshotOf(pkg));
  const miss = commands.map((args) => run(pkg, args));
  writeFileSync(snapshotOf(pkg), saved);
  return { hit, miss };
}

/** Edits the copy's plan: `replace` applied to its text, which must change. */
function editPlan(pkg: string, edit: (text: string) => string): void {
  const file = join(pkg, 'policies/plan.yaml');
  const before = readFileSync(file, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(file, after);
}

// Each test runs the binary up to a dozen times: on a loaded machine that takes longer than the default timeout.
describe('the built-in snapshot, on the built package', { timeout: 120_000 }, () => {
  it('answers a lint of the built-in plan without the parser, the validator or any lint rule', () => {
    const pkg = freshPackage();
    expect(readSnapshot(readFileSync(snapshotOf(pkg), 'utf8'))!.findings(null)).toBeDefined();
    for (const args of [['lint', 'policies/plan.yaml'], ['lint']]) {
      const r = run(pkg, args);
      expect(output(r)).toMatchObject({ code: 0, stdout: '' });
      expect(r.loaded).toContain('dist/compile/builtin-snapshot.js');
      expect(r.loaded.filter((m) => PARSER.includes(m) || m.startsWith('dist/compile/rules/'))).toEqual([]);
    }
    rmSync(snapshotOf(pkg));
    const r = run(pkg, ['lint', 'policies/plan.yaml']);
    expect(output(r)).toMatchObject({ code: 0, stdout: '' });
    expect(parsed(r)).toBe(true);
    expect(r.loaded).toContain('dist/compile/rules/index.js');
  });

  it('changes no output: lint (stylish, json), check and matrix print what they print without it', () => {
    const pkg = freshPackage();
    const { hit, miss } = withAndWithout(pkg);
    expect(hit.map(output)).toEqual(miss.map(output));
    expect(hit.filter(parsed)).toEqual([]);
    expect(miss.every(parsed)).toBe(true);
    // Not vacuous: check names the deciding rules' lines and columns in the plan.
    expect(hit[3]!.stdout).toMatch(/policies\/plan\.yaml:\d+:\d+/);
    expect(hit[4]!.stdout).toMatch(/policies\/plan\.yaml:\d+:\d+/);
  });

  it('answers a copy of the plan elsewhere with the same document, linted as that file', () => {
    const pkg = freshPackage();
    const dir = mkdtempSync(join(pkg, 'project-'));
    cpSync(join(pkg, 'policies/plan.yaml'), join(dir, 'mine.yaml'));
    const args = ['lint', '--no-builtin', 'mine.yaml', '--format', 'json'];
    const hit = run(pkg, args, dir);
    rmSync(snapshotOf(pkg));
    const miss = run(pkg, args, dir);
    expect(output(hit)).toEqual(output(miss));
    expect(parsed(hit)).toBe(false);
    expect(hit.loaded).toContain('dist/compile/rules/index.js');
  });

  // A plan with findings, snapshotted by the build script as `npm run build` runs it: the findings it caches
  // (messages that name no path), and those it cannot (a failing test's help names the deciding rule's file).
  it.each([
    {
      name: 'cached findings',
      cached: true,
      edit: (t: string) =>
        t.replace(/^ {2}list: allow$/m, '  list: allow\n  "rea*": allow\n  "web_*": allow'),
    },
    {
      name: 'findings that name the file',
      cached: false,
      edit: (t: string) =>
        t.replace(/^ {2}list: allow$/m, '  list: allow\n  "mcp__*": ask') +
        '  - { tool: write, expect: allow }\n',
    },
  ])('gives the file:line:column of parsing for a plan with $name', ({ cached, edit }) => {
    const pkg = freshPackage();
    editPlan(pkg, edit);
    const build = spawnSync(process.execPath, ['scripts/builtin-snapshot.mjs'], {
      cwd: pkg,
      encoding: 'utf8',
    });
    expect(build.status, build.stderr).toBe(0);
    const reader = readSnapshot(readFileSync(snapshotOf(pkg), 'utf8'))!;
    expect(reader.findings(null) !== undefined).toBe(cached);
    const commands = COMMANDS.filter(([c]) => c === 'lint');
    const { hit, miss } = withAndWithout(pkg, commands);
    expect(hit.map(output)).toEqual(miss.map(output));
    expect(hit.filter(parsed)).toEqual([]);
    const report = JSON.parse(hit[1]!.stdout) as { diagnostics: { line: number; column: number }[] };
    expect(report.diagnostics.length).toBeGreaterThan(0);
    expect(hit[0]!.stdout).toMatch(/^ {2}\d+:\d+ /m);
    expect(hit[0]!.loaded.some((m) => m.startsWith('dist/compile/rules/'))).toBe(!cached);
  });

  describe('a plan edited after the build is read as it is now', () => {
    it('an inline test that now fails is reported where it is written', () => {
      const pkg = freshPackage();
      editPlan(pkg, (t) => `${t}  - { name: edited after the build, tool: write, expect: allow }\n`);
      const lines = readFileSync(join(pkg, 'policies/plan.yaml'), 'utf8').split('\n');
      const line = lines.findIndex((l) => l.includes('edited after the build')) + 1;
      const r = run(pkg, ['lint', 'policies/plan.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`^ {2}${line}:5 +error +test \`edited after the build\``, 'm'));
      expect(parsed(r)).toBe(true);
    });

    it('a changed rule decides', () => {
      const pkg = freshPackage();
      expect(run(pkg, ['check', 'plan', 'web_fetch']).stdout).toContain('tool `web_fetch`: allow');
      editPlan(pkg, (t) =>
        t
          .replace(/^ {2}web_fetch: allow$/m, '  web_fetch: deny')
          .replace('{ tool: web_fetch, expect: allow }', '{ tool: web_fetch, expect: deny }'),
      );
      const r = run(pkg, ['check', 'plan', 'web_fetch']);
      expect(r.stdout).toContain('tool `web_fetch`: deny');
      expect(output(run(pkg, ['lint', 'policies/plan.yaml']))).toMatchObject({ code: 0, stdout: '' });
    });

    it('a syntax error is reported at its line and column', () => {
      const pkg = freshPackage();
      editPlan(pkg, (t) => t.replace(/^ {2}grep: allow$/m, '  grep: @allow'));
      const line =
        readFileSync(join(pkg, 'policies/plan.yaml'), 'utf8').split('\n').indexOf('  grep: @allow') + 1;
      const r = run(pkg, ['lint', 'policies/plan.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`^ {2}${line}:9 +error +plain value cannot start .* syntax$`, 'm'));
      expect(parsed(r)).toBe(true);
    });

    it('a change of one byte that keeps the length is read', () => {
      const pkg = freshPackage();
      editPlan(pkg, (t) => t.replace(/^ {2}read: allow$/m, '  read: alloW'));
      const r = run(pkg, ['lint', 'policies/plan.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('invalid-decision');
      expect(parsed(r)).toBe(true);
    });

    it('a byte order mark, which reading drops, changes no output', () => {
      const pkg = freshPackage();
      editPlan(pkg, (t) => `\uFEFF${t}`);
      const commands = [
        ['lint', 'policies/plan.yaml', '--format', 'json'],
        ['check', 'plan', 'write'],
      ];
      const { hit, miss } = withAndWithout(pkg, commands);
      expect(hit.map(output)).toEqual(miss.map(output));
      expect(hit[0]!.code).toBe(0);
    });
  });

  // Red team: ways to make a command decide from something other than the plan.yaml on disk.
  describe('red team: only the plan on disk decides', () => {
    it('CRLF line ends (a text the snapshot does not hold) change no output', () => {
      const pkg = freshPackage();
      editPlan(pkg, (t) => t.replace(/\n/g, '\r\n'));
      const commands = [
        ['lint', 'policies/plan.yaml', '--format', 'json'],
        ['check', 'plan', 'write'],
      ];
      const { hit, miss } = withAndWithout(pkg, commands);
      expect(hit.map(output)).toEqual(miss.map(output));
      expect(hit.every(parsed)).toBe(true);
    });

    it('a plan.yaml that is a symlink to an edited copy is read through the link', () => {
      const pkg = freshPackage();
      const plan = join(pkg, 'policies/plan.yaml');
      const edited = join(pkg, 'edited-plan.yaml');
      writeFileSync(
        edited,
        readFileSync(plan, 'utf8')
          .replace(/^ {2}web_fetch: allow$/m, '  web_fetch: deny')
          .replace('{ tool: web_fetch, expect: allow }', '{ tool: web_fetch, expect: deny }'),
      );
      rmSync(plan);
      symlinkSync(edited, plan);
      expect(run(pkg, ['check', 'plan', 'web_fetch']).stdout).toContain('tool `web_fetch`: deny');
      expect(output(run(pkg, ['lint', 'policies/plan.yaml']))).toMatchObject({ code: 0, stdout: '' });
    });

    it('--no-builtin with the plan named as a path, and the plan through a symlink, print what they print without it', () => {
      const pkg = freshPackage();
      symlinkSync(join(pkg, 'policies/plan.yaml'), join(pkg, 'linked-plan.yaml'));
      const commands = [
        ['lint', '--no-builtin', 'policies/plan.yaml', '--format', 'json'],
        ['lint', 'linked-plan.yaml', '--format', 'json'],
        ['lint', '--no-builtin', 'linked-plan.yaml', '--format', 'json'],
      ];
      const { hit, miss } = withAndWithout(pkg, commands);
      expect(hit.map(output)).toEqual(miss.map(output));
    });

    it('a plan.yaml that is gone is an error, never answered from the snapshot', () => {
      const pkg = freshPackage();
      rmSync(join(pkg, 'policies/plan.yaml'));
      for (const args of [['lint'], ['check', 'plan', 'write']]) {
        const r = run(pkg, args);
        expect(r.code, r.stdout).not.toBe(0);
        expect(`${r.stdout}${r.stderr}`).toContain('plan.yaml');
      }
    });

    it('a snapshot with a valid hash is read only from beside the module, never from the project', () => {
      const pkg = freshPackage();
      const raw = readFileSync(snapshotOf(pkg), 'utf8');
      // A forged snapshot of the shipped text whose document denies web_fetch, with its hash made to match:
      // the hash is an integrity check, not a signature, so only where it is read from keeps it honest.
      const [, text, document, tree, findings] = raw.split('\n');
      const forgedDocument = document!.replace('"web_fetch":"allow"', '"web_fetch":"deny"');
      expect(forgedDocument).not.toBe(document);
      const rest = [text, forgedDocument, tree, findings].join('\n');
      const sha = createHash('sha256').update(rest).digest('hex');
      const forged = `${JSON.stringify({ format: readSnapshotFormat(raw), sha256: sha })}\n${rest}`;
      expect(readSnapshot(forged)?.document(null)).toBeDefined();
      const project = mkdtempSync(join(pkg, 'project-'));
      // (Not in the project's policies/: a JSON file there is read as a policy.)
      for (const place of ['', 'dist/compile', '.dsh', 'node_modules/dsh-mode/dist/compile']) {
        mkdirSync(join(project, place), { recursive: true });
        writeFileSync(join(project, place, 'builtin-snapshot.json'), forged);
      }
      const r = run(pkg, ['check', 'plan', 'web_fetch'], project);
      expect(r.stdout, r.stderr).toContain('tool `web_fetch`: allow');
      expect(parsed(r)).toBe(false);
      // Beside the module it is as trusted as the code: there it would answer (the reason the file is dist's).
      writeFileSync(snapshotOf(pkg), forged);
      expect(run(pkg, ['check', 'plan', 'web_fetch'], project).stdout).toContain('tool `web_fetch`: deny');
    });
  });

  describe('a damaged snapshot is not used', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const damages: { name: string; damage: (raw: string) => string }[] = [
      { name: 'cut in half', damage: (raw) => raw.slice(0, raw.length >> 1) },
      { name: 'empty', damage: () => '' },
      { name: 'not JSON', damage: () => 'not a snapshot\nat all' },
      { name: 'its header only', damage: (raw) => raw.slice(0, raw.indexOf('\n') + 1) },
      {
        name: 'a byte of its document changed',
        damage: (raw) => raw.replace('"web_fetch":"allow"', '"web_fetch":"deny!"'),
      },
      {
        name: 'another format',
        damage: (raw) => raw.replace(/^\{"format":\d+/, '{"format":999'),
      },
      {
        name: 'its document not a document, under a matching hash',
        damage: (raw) => {
          const [header, text, , tree, findings] = raw.split('\n');
          const rest = [text, '["not", "a document"]', tree, findings].join('\n');
          return `${header!.replace(/"sha256":"\w+"/, `"sha256":"${sha(rest)}"`)}\n${rest}`;
        },
      },
    ];

    const commands = [
      ['lint', 'policies/plan.yaml', '--format', 'json'],
      ['check', 'plan', 'web_fetch'],
    ];
    // One package for every damage: its outputs without a snapshot, then each damaged snapshot in turn.
    let pkg: string;
    let raw: string;
    let miss: Run[];
    beforeAll(() => {
      pkg = freshPackage();
      raw = readFileSync(snapshotOf(pkg), 'utf8');
      rmSync(snapshotOf(pkg));
      miss = commands.map((args) => run(pkg, args));
    });

    it.each(damages)('$name: every output is the one without a snapshot', ({ damage }) => {
      const damaged = damage(raw);
      expect(damaged).not.toBe(raw);
      const reader = readSnapshot(damaged);
      expect(reader === null || reader.document('plan.yaml') === undefined).toBe(true);
      writeFileSync(snapshotOf(pkg), damaged);
      const hit = commands.map((args) => run(pkg, args));
      expect(hit.map(output)).toEqual(miss.map(output));
      expect(hit.every(parsed)).toBe(true);
      expect(hit[1]!.stdout).toContain('tool `web_fetch`: allow');
    });
  });
});
