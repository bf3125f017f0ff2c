/**
 * The layering of src/, checked on the source: the import graph (static, type-only and dynamic imports alike) has
 * no cycle, each layer imports only the layers below it, and every folder says in its README what it owns and
 * what it may import.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

function walk(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The relative imports of a module, as src-relative paths of `.ts` files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1]!;
    if (!specifier.startsWith('.')) continue;
    const source = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
    // A generated module (not in git) is known by its declaration, as tsc knows it.
    const declared = source.replace(/\.ts$/, '.d.ts');
    const target = !existsSync(source) && existsSync(declared) ? declared : source;
    found.push(relative(SRC, target).split('\\').join('/'));
  }
  return found;
}

const modules = walk(SRC).map((f) => relative(SRC, f).split('\\').join('/'));
const graph = new Map(modules.map((m) => [m, importsOf(join(SRC, m))]));

/** Every cycle's members (strongly connected components of more than one module, or a self-import). */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The imports of `from` modules that land in `banned` folders, as `module -> target` lines. */
function crossings(from: (m: string) => boolean, banned: readonly string[]): string[] {
  return [...graph]
    .filter(([m]) => from(m))
    .flatMap(([m, targets]) =>
      targets.filter((t) => banned.some((b) => t.startsWith(`${b}/`))).map((t) => `${m} -> ${t}`),
    );
}

describe('the import graph of src/', () => {
  it('reads every module and finds the imports', () => {
    expect(modules.length).toBeGreaterThan(50);
    expect(graph.get('cli/main.ts')).toContain('cli/argv.ts');
    expect(graph.get('compile/index.ts')).toContain('compile/decide/compile.ts');
  });

  it('finds a cycle when there is one', () => {
    const edges = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(edges)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('resolves every relative import to a module of src/', () => {
    const missing = [...graph].flatMap(([m, targets]) =>
      targets.filter((t) => !graph.has(t) && !t.endsWith('.json')).map((t) => `${m} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('the layers of src/', () => {
  it('src/compile imports nothing from any other layer', () => {
    expect(
      crossings((m) => m.startsWith('compile/'), ['engine', 'host', 'deploy', 'mcp', 'apps', 'cli']),
    ).toEqual([]);
  });

  // The compiler's boundary is one module, what crosses it listed in compile/index.ts, plus its data model
  // (compile/types.ts, types only), which a declaration file can name without pulling in the rest.
  // compile/builtin-plan.ts is pure: the engine's authorize names the built-in plan without loading Node's modules.
  // compile/runtime.ts is the deciding half alone (no parser, no validators), for the agents' hook bundle.
  it('other layers import src/compile only through compile/index.ts, runtime.ts, builtin-plan.ts and types.ts', () => {
    const inside = crossings((m) => !m.startsWith('compile/') && m !== 'index.ts', ['compile']).filter(
      (l) =>
        !l.endsWith('-> compile/index.ts') &&
        !l.endsWith('-> compile/types.ts') &&
        !l.endsWith('-> compile/builtin-plan.ts') &&
        !l.endsWith('-> compile/runtime.ts'),
    );
    expect(inside).toEqual([]);
  });

  // Inside the compiler the concepts build on each other one way, so each folder can be read without the later ones.
  it('the folders of src/compile depend one way: language, catalog, decide and shell, lint, report', () => {
    const order = ['language', 'catalog', 'shell', 'decide', 'lint', 'report'];
    const later = (folder: string) => order.slice(order.indexOf(folder) + 1).map((f) => `compile/${f}`);
    const backwards = order.flatMap((folder) =>
      crossings((m) => m.startsWith(`compile/${folder}/`), later(folder)),
    );
    expect(backwards).toEqual([]);
  });

  it('src/files imports nothing from src/', () => {
    expect(
      crossings((m) => m.startsWith('files/'), ['compile', 'engine', 'host', 'deploy', 'mcp', 'apps', 'cli']),
    ).toEqual([]);
  });

  it('src/engine/authorize.ts imports nothing from host, deploy, apps or cli', () => {
    expect(crossings((m) => m === 'engine/authorize.ts', ['host', 'deploy', 'apps', 'cli'])).toEqual([]);
  });

  it('src/deploy imports nothing from host, engine, apps or cli', () => {
    expect(crossings((m) => m.startsWith('deploy/'), ['host', 'engine', 'apps', 'cli'])).toEqual([]);
  });

  it('src/engine imports nothing from apps or cli', () => {
    expect(crossings((m) => m.startsWith('engine/'), ['apps', 'cli'])).toEqual([]);
  });

  it('src/host imports nothing from engine, deploy, apps or cli', () => {
    expect(crossings((m) => m.startsWith('host/'), ['engine', 'deploy', 'apps', 'cli'])).toEqual([]);
  });

  it('src/mcp imports nothing from engine, compile, deploy, apps or cli', () => {
    expect(crossings((m) => m.startsWith('mcp/'), ['engine', 'compile', 'deploy', 'apps', 'cli'])).toEqual(
      [],
    );
  });

  it('src/apps imports nothing from cli', () => {
    expect(crossings((m) => m.startsWith('apps/'), ['cli'])).toEqual([]);
  });

  it('only src/cli imports src/agents', () => {
    expect(crossings((m) => !m.startsWith('agents/') && !m.startsWith('cli/'), ['agents'])).toEqual([]);
  });

  it('src/agents imports nothing from cli or mcp, and from apps and host only what it names', () => {
    expect(crossings((m) => m.startsWith('agents/'), ['cli', 'mcp'])).toEqual([]);
    const allowed = ['apps/trust.ts', 'apps/version.ts', 'host/journal-path.ts', 'host/types.ts'];
    const reached = crossings((m) => m.startsWith('agents/'), ['apps', 'host']).filter(
      (l) => !allowed.some((a) => l.endsWith(`-> ${a}`)),
    );
    expect(reached).toEqual([]);
  });

  it('compile/runtime.ts reaches no parser or validator', () => {
    const seen = new Set<string>();
    const visit = (m: string): void => {
      if (seen.has(m)) return;
      seen.add(m);
      for (const t of graph.get(m) ?? []) visit(t);
    };
    visit('compile/runtime.ts');
    expect([...seen].filter((m) => /language\/(parse|load|validate|source)\.ts$|validator/.test(m))).toEqual(
      [],
    );
  });

  it('no command module imports another command module', () => {
    const links = [...graph]
      .filter(([m]) => m.startsWith('cli/commands/') && m !== 'cli/commands/index.ts')
      .flatMap(([m, targets]) =>
        targets.filter((t) => t.startsWith('cli/commands/')).map((t) => `${m} -> ${t}`),
      );
    expect(links).toEqual([]);
    const outside = crossings(
      (m) => m.startsWith('cli/') && !m.startsWith('cli/commands/'),
      ['cli/commands'],
    ).filter((l) => !l.endsWith('-> cli/commands/index.ts'));
    expect(outside).toEqual([]);
  });
});

describe('the READMEs of src/', () => {
  // Every folder, nested ones included, and src/ itself (`.`).
  const folders = [
    '.',
    ...readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((e) => e.isDirectory())
      .map((e) => relative(SRC, join(e.parentPath, e.name))),
  ];

  it.each(folders)('src/%s has a README.md that says what it owns and what it may import', (folder) => {
    const readme = join(SRC, folder, 'README.md');
    expect(existsSync(readme)).toBe(true);
    const text = readFileSync(readme, 'utf8');
    expect(text).toMatch(folder === '.' ? /^# src\// : new RegExp(`^# src/${folder}\\b`));
    expect(text).toMatch(/^## (May import|Imports)/m);
  });
});
