// @ts-check
/**
 * The API report: every name each package entry point (`exports` in package.json) exports, with its kind and the
 * first sentence of its TSDoc. Generated from src/ through the compiler, so a change to the public surface is a
 * visible diff of docs/reference/api.md, and a test holds each entry point to its budget of names.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { cell, code, generatedNotice, page, table } from './markdown.mjs';
import { docOf, openSourceProgram, relPath } from './ts-source.mjs';

/**
 * The package's code entry points: the subpath, and the source file that its `dist/` target is built from.
 * @param {string} root the repository root
 * @returns {{ subpath: string; source: string }[]}
 */
export function entryPoints(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  /** @type {{ subpath: string; source: string }[]} */
  const out = [];
  for (const [key, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (typeof file !== 'string' || !file.startsWith('./dist/') || !file.endsWith('.js')) continue;
    const subpath = key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`;
    out.push({ subpath, source: `src/${file.slice('./dist/'.length, -'.js'.length)}.ts` });
  }
  return out;
}

/**
 * What kind of thing an exported symbol is, in the words a reader of the API uses.
 * @param {ts.Symbol} symbol the aliased (resolved) symbol
 * @returns {string}
 */
function kindOf(symbol) {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Variable) {
    const decl = symbol.valueDeclaration;
    const list = decl?.parent;
    return list && ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const ? 'const' : 'let';
  }
  if (f & ts.SymbolFlags.Module) return 'namespace';
  return 'value';
}

/**
 * The exports of each entry point, sorted by name.
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @returns {{ subpath: string; source: string; names: { name: string; kind: string; summary: string; from: string }[] }[]}
 */
export function apiSurface(sp) {
  return entryPoints(sp.root).map(({ subpath, source }) => {
    const file = sp.program.getSourceFile(join(sp.root, source));
    if (file === undefined)
      throw new Error(`api: ${source} (the source of ${subpath}) is not in the program`);
    const module = sp.checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`api: ${source} has no exports`);
    const names = sp.checker
      .getExportsOfModule(module)
      .map((exported) => {
        const symbol =
          exported.flags & ts.SymbolFlags.Alias ? sp.checker.getAliasedSymbol(exported) : exported;
        const decl = symbol.declarations?.[0];
        // A const's TSDoc sits on its statement, two levels up from the declaration.
        const documented = decl !== undefined && ts.isVariableDeclaration(decl) ? decl.parent.parent : decl;
        const summary =
          documented === undefined ? '' : (docOf(sp, documented).text.split(/\n\s*\n|(?<=\.)\s/)[0] ?? '');
        const from = decl === undefined ? '' : relPath(sp, decl.getSourceFile());
        return { name: exported.name, kind: kindOf(symbol), summary: summary.replace(/\s+/g, ' '), from };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { subpath, source, names };
  });
}

/**
 * The exports of each entry point, from a fresh program over src/.
 * @param {string} root the repository root
 */
export function apiSurfaceOf(root) {
  return apiSurface(openSourceProgram(root));
}

/**
 * The API report page.
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @returns {string}
 */
export function apiPage(sp) {
  const surface = apiSurface(sp);
  return page([
    generatedNotice('scripts/docs/api.mjs'),
    '# Public API',
    'Every name the package exports, by entry point. This page is the API report: a change to the public surface ' +
      'shows here as a diff, and `test/docs/api.test.ts` keeps each entry point small. Anything not listed ' +
      '(the host, the CLI, the apps, deep imports into `dist/`) is not API and may change in any release.',
    table(
      ['Entry point', 'Source', 'Names'],
      surface.map((e) => [code(e.subpath), code(e.source), String(e.names.length)]),
    ),
    ...surface.flatMap((e) => [
      `## ${code(e.subpath)}`,
      table(
        ['Name', 'Kind', 'Summary'],
        e.names.map((n) => [code(n.name), n.kind, cell(n.summary)]),
      ),
    ]),
  ]);
}
