// @ts-check
/**
 * Reading declarations and their TSDoc from src/ with the TypeScript compiler API: the services page and the
 * session-events page are generated from what the source says, not from a copy of it.
 * @module
 */
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * @typedef {{ root: string; program: ts.Program; checker: ts.TypeChecker }} SourceProgram
 */

/**
 * A program over src/ (tsconfig.build.json), with its type checker.
 * @param {string} root the repository root
 * @returns {SourceProgram}
 */
export function openSourceProgram(root) {
  const configFile = join(root, 'tsconfig.build.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return { root, program, checker: program.getTypeChecker() };
}

/**
 * The repository-relative path of a source file, with forward slashes.
 * @param {SourceProgram} sp
 * @param {ts.SourceFile} file
 */
export function relPath(sp, file) {
  return relative(sp.root, file.fileName).split(sep).join('/');
}

/**
 * The source files under a folder of the repository, sorted by path.
 * @param {SourceProgram} sp
 * @param {string} folder for example `src/host`
 * @returns {ts.SourceFile[]}
 */
export function filesUnder(sp, folder) {
  return sp.program
    .getSourceFiles()
    .filter((f) => !f.isDeclarationFile && relPath(sp, f).startsWith(`${folder}/`))
    .sort((a, b) => (relPath(sp, a) < relPath(sp, b) ? -1 : 1));
}

/**
 * The module header of a file: its first `/** … *\/` comment that says `@module`, as Markdown.
 * @param {ts.SourceFile} file
 * @returns {string}
 */
export function moduleDoc(file) {
  for (const range of ts.getLeadingCommentRanges(file.text, 0) ?? []) {
    const text = file.text.slice(range.pos, range.end);
    if (!text.startsWith('/**') || !text.includes('@module')) continue;
    return text
      .replace(/^\/\*\*\s*/, '')
      .replace(/\s*\*\/$/, '')
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .filter((line) => !line.startsWith('@module'))
      .join('\n')
      .replace(/\{@link (\w+)\}/g, '`$1`')
      .trim();
  }
  return '';
}

/**
 * The TSDoc of a declaration, parsed from its own `/** … *\/` comment (the last one before it): the text, and
 * each block tag with its raw text. Raw, because the compiler's parsed tags lose `@throws {@link X} …`.
 * `{@link X}` becomes `X` in code.
 * @param {SourceProgram} _sp
 * @param {ts.Node} node a declaration
 * @returns {{ text: string; tags: { name: string; text: string }[] }}
 */
export function docOf(_sp, node) {
  const file = node.getSourceFile();
  const ranges = ts.getLeadingCommentRanges(file.text, node.getFullStart()) ?? [];
  const range = ranges.filter((r) => file.text.startsWith('/**', r.pos)).at(-1);
  if (range === undefined) return { text: '', tags: [] };
  const lines = file.text
    .slice(range.pos + 3, range.end - 2)
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd());
  const text = [];
  /** @type {{ name: string; text: string }[]} */
  const tags = [];
  for (const line of lines) {
    const tag = /^@(\w+)\s*(.*)$/.exec(line.trim());
    if (tag) tags.push({ name: tag[1] ?? '', text: tag[2] ?? '' });
    else if (tags.length > 0) tags[tags.length - 1].text += ` ${line.trim()}`;
    else text.push(line);
  }
  const links = (/** @type {string} */ t) => t.replace(/\{@link ([\w.]+)\}/g, '`$1`').trim();
  return { text: links(text.join('\n')), tags: tags.map((t) => ({ name: t.name, text: links(t.text) })) };
}

/**
 * The signature of a method or function declaration, as `(a: A): R`.
 * @param {SourceProgram} sp
 * @param {ts.SignatureDeclaration} node
 */
export function signatureText(sp, node) {
  const signature = sp.checker.getSignatureFromDeclaration(node);
  if (signature === undefined) return '()';
  return sp.checker.signatureToString(signature, undefined, ts.TypeFormatFlags.NoTruncation);
}

/**
 * Named types a type node mentions whose declarations live in src/ (interfaces, type aliases, classes).
 * @param {SourceProgram} sp
 * @param {ts.Node | undefined} node
 * @param {Map<string, ts.Declaration>} into name → declaration, filled in
 */
export function collectSourceTypes(sp, node, into) {
  if (node === undefined) return;
  const visit = (/** @type {ts.Node} */ n) => {
    if (ts.isTypeReferenceNode(n)) {
      const id = ts.isIdentifier(n.typeName) ? n.typeName : n.typeName.right;
      let symbol = sp.checker.getSymbolAtLocation(id);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = sp.checker.getAliasedSymbol(symbol);
      const decl = symbol?.declarations?.find(
        (d) =>
          (ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d)) &&
          relPath(sp, d.getSourceFile()).startsWith('src/'),
      );
      if (decl && !into.has(id.text)) into.set(id.text, decl);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
}

/**
 * The source text of a declaration with its leading JSDoc, `export` and `declare` dropped, re-indented.
 * @param {ts.Declaration} decl
 */
export function declarationText(decl) {
  const file = decl.getSourceFile();
  const leading = file.text.slice(decl.getFullStart(), decl.getStart());
  // Keep the declaration's own JSDoc, not divider comments above it.
  const doc = leading.lastIndexOf('/**');
  const start = doc === -1 ? decl.getStart() : decl.getFullStart() + doc;
  const text = file.text.slice(start, decl.getEnd());
  const column = start - file.text.lastIndexOf('\n', start - 1) - 1;
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.slice(Math.min(column, line.length - line.trimStart().length))))
    .join('\n')
    .replace(/^(\s*)export /m, '$1')
    .trim();
}

/**
 * Adds, until nothing new appears, the src/ types that the collected types mention.
 * @param {SourceProgram} sp
 * @param {Map<string, ts.Declaration>} types filled in
 */
export function closeOverSourceTypes(sp, types) {
  let size = -1;
  while (size !== types.size) {
    size = types.size;
    for (const decl of [...types.values()]) collectSourceTypes(sp, decl, types);
  }
}

/**
 * Every `declare module 'cordis' { interface <name> { … } }` member in files under a folder.
 * @param {SourceProgram} sp
 * @param {string} folder
 * @param {'Context' | 'Events'} name
 * @returns {{ member: ts.TypeElement; file: ts.SourceFile }[]}
 */
export function cordisAugmentations(sp, folder, name) {
  const out = [];
  for (const file of filesUnder(sp, folder)) {
    for (const statement of file.statements) {
      if (!ts.isModuleDeclaration(statement) || statement.name.text !== 'cordis') continue;
      const body = statement.body;
      if (!body || !ts.isModuleBlock(body)) continue;
      for (const inner of body.statements) {
        if (ts.isInterfaceDeclaration(inner) && inner.name.text === name) {
          for (const member of inner.members) out.push({ member, file });
        }
      }
    }
  }
  return out;
}

/**
 * Every member of `SessionEventMap` as declared in files under `src/` (the host's interface and plugins'
 * augmentations), with its payload type text and TSDoc.
 * @param {SourceProgram} sp
 * @returns {{ type: string; payload: string; typeNode: ts.TypeNode | undefined; file: string; doc: string }[]}
 */
export function sessionEventDeclarations(sp) {
  /** @type {{ type: string; payload: string; typeNode: ts.TypeNode | undefined; file: string; doc: string }[]} */
  const out = [];
  const visit = (/** @type {ts.Node} */ n, /** @type {ts.SourceFile} */ file) => {
    if (ts.isInterfaceDeclaration(n) && n.name.text === 'SessionEventMap') {
      for (const m of n.members) {
        if (!ts.isPropertySignature(m) || !m.name || !ts.isStringLiteral(m.name)) continue;
        out.push({
          type: m.name.text,
          payload: m.type ? m.type.getText(file).replace(/\s+/g, ' ') : 'unknown',
          typeNode: m.type,
          file: relPath(sp, file),
          doc: docOf(sp, m).text,
        });
      }
    }
    ts.forEachChild(n, (c) => visit(c, file));
  };
  for (const file of filesUnder(sp, 'src')) visit(file, file);
  return out;
}
