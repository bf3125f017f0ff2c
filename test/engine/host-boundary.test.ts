/**
 * The engine depends on the host by types only: every import of `src/host/` from `src/engine/*.ts` is an
 * `import type` (or `export type … from`), and no run-time import chain that starts in the engine reaches
 * `src/host/` through another folder. Read with the TypeScript parser, so a comment or a string cannot fool it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const HOST = join(SRC, 'host');

interface ModuleImport {
  /** The resolved source file, or null for a package. */
  target: string | null;
  specifier: string;
  typeOnly: boolean;
}

/** Every import, re-export and dynamic import of one file. */
function importsOf(file: string): ModuleImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: ModuleImport[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    found.push({ target: resolveSpecifier(file, specifier), specifier, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly === true);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node)) {
      return; // `import('…').T` in a type position is erased.
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  // A generated module (not in git) is known by its declaration, as tsc knows it.
  const declared = base.replace(/\.js$/, '.d.ts');
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), declared]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${relative(SRC, from)}: cannot resolve ${specifier}`);
}

const inHost = (file: string): boolean => file === HOST || file.startsWith(HOST + '/');

const engineFiles = readdirSync(join(SRC, 'engine'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join(SRC, 'engine', name));

describe('src/engine → src/host', () => {
  it('imports only types from the host', () => {
    const runtime = engineFiles.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.target !== null && inHost(i.target) && !i.typeOnly)
        .map((i) => `${relative(SRC, file)}: ${i.specifier}`),
    );
    expect(engineFiles.length).toBeGreaterThan(5);
    expect(runtime).toEqual([]);
  });

  it('reaches no host module at run time, through any folder', () => {
    const seen = new Set<string>();
    const reached: string[] = [];
    const walk = (file: string, path: string[]): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const i of importsOf(file)) {
        if (i.typeOnly || i.target === null) continue;
        const chain = [...path, relative(SRC, i.target)];
        if (inHost(i.target)) reached.push(chain.join(' → '));
        else walk(i.target, chain);
      }
    };
    for (const file of engineFiles) walk(file, [relative(SRC, file)]);
    expect(seen.size).toBeGreaterThan(engineFiles.length);
    expect(reached).toEqual([]);
  });

  it('sees a run-time import of the host as one (the check can fail)', () => {
    const probe = join(SRC, 'engine', 'plugin.ts');
    // The host's own files import each other at run time; the same parser must report that.
    const hostRuntime = importsOf(join(HOST, 'host.ts')).filter(
      (i) => !i.typeOnly && i.target && inHost(i.target),
    );
    expect(hostRuntime.length).toBeGreaterThan(0);
    expect(importsOf(probe).some((i) => i.target !== null && inHost(i.target) && i.typeOnly)).toBe(true);
  });
});
