// @ts-check
/**
 * docs/reference/services.md: the cordis services (`ctx.modes`, `ctx.sessions`, …) and the events plugins listen
 * to, from their declarations and TSDoc in src/host and src/engine (`declare module 'cordis'` blocks, the service
 * classes, their public members), read with the TypeScript compiler API.
 * @module
 */
import ts from 'typescript';
import { code, fence, generatedNotice, page } from './markdown.mjs';
import {
  closeOverSourceTypes,
  collectSourceTypes,
  cordisAugmentations,
  declarationText,
  docOf,
  moduleDoc,
  relPath,
  signatureText,
} from './ts-source.mjs';

/** The seams, in the order the page presents them; anything else declared there follows, sorted. */
const SERVICE_ORDER = ['modes', 'sessions', 'systemPrompt', 'tools', 'approval', 'agents'];
const EVENT_ORDER = [
  'session/event',
  'agent/created',
  'system-prompt/assemble',
  'tools/pre-execute',
  'approval/request',
];
const FOLDERS = ['src/engine', 'src/host'];

/**
 * @param {readonly string[]} order
 * @returns {(a: { name: string }, b: { name: string }) => number}
 */
function byOrder(order) {
  const rank = (/** @type {string} */ n) => (order.includes(n) ? order.indexOf(n) : order.length);
  return (a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * TSDoc as Markdown: the comment, then `@param`, `@returns` and `@throws` as a list.
 * @param {{ text: string; tags: { name: string; text: string }[] }} doc
 */
function docMarkdown(doc) {
  const tags = doc.tags
    .filter((t) => ['param', 'returns', 'throws'].includes(t.name))
    .map((t) => {
      if (t.name === 'param') {
        const [name, ...rest] = t.text.split(/\s+/);
        return `- ${code(name ?? '')}: ${rest.join(' ').replace(/^- /, '')}`;
      }
      return `- ${t.name === 'returns' ? 'Returns' : 'Throws'}: ${t.text.replace(/\{@link (\w+)\}/g, '`$1`')}`;
    });
  return [doc.text.replace(/\{@link (\w+)\}/g, '`$1`'), tags.join('\n')]
    .filter((b) => b.length > 0)
    .join('\n\n');
}

/**
 * @param {ts.ClassElement} m
 */
function isPublic(m) {
  const flags = ts.getCombinedModifierFlags(/** @type {ts.Declaration} */ (m));
  if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) return false;
  return m.name !== undefined && !ts.isPrivateIdentifier(m.name);
}

/**
 * One service: `ctx.<name>`, its class, module header and public members.
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @param {string} name
 * @param {ts.PropertySignature} member
 * @param {Map<string, ts.Declaration>} types collects the src/ types the members mention
 */
function serviceSection(sp, name, member, types) {
  const typeNode = member.type;
  const symbol =
    typeNode && ts.isTypeReferenceNode(typeNode)
      ? sp.checker.getSymbolAtLocation(typeNode.typeName)
      : undefined;
  const cls = symbol?.declarations?.find(ts.isClassDeclaration);
  if (cls === undefined || cls.name === undefined) throw new Error(`ctx.${name}: no service class found`);
  const file = cls.getSourceFile();
  const members = cls.members.filter(
    (m) => isPublic(m) && (ts.isMethodDeclaration(m) || ts.isPropertyDeclaration(m) || ts.isGetAccessor(m)),
  );
  const blocks = members.map((m) => {
    const memberName = /** @type {ts.Identifier} */ (m.name).text;
    let signature;
    if (ts.isMethodDeclaration(m)) {
      signature = `ctx.${name}.${memberName}${signatureText(sp, m)}`;
      for (const p of m.parameters) collectSourceTypes(sp, p.type, types);
      collectSourceTypes(sp, m.type, types);
    } else {
      const type = sp.checker.typeToString(
        sp.checker.getTypeAtLocation(m),
        undefined,
        ts.TypeFormatFlags.NoTruncation,
      );
      signature = `ctx.${name}.${memberName}: ${type}`;
    }
    return [
      `#### ${code(`${memberName}${ts.isMethodDeclaration(m) ? '()' : ''}`)}`,
      fence('ts', signature),
      docMarkdown(docOf(sp, m)),
    ]
      .filter((b) => b.length > 0)
      .join('\n\n');
  });
  return [
    `### ctx.${name}`,
    `${code(cls.name.text)}, declared in ${code(relPath(sp, file))}.`,
    moduleDoc(file),
    docMarkdown(docOf(sp, cls)),
    ...blocks,
  ]
    .filter((b) => b.length > 0)
    .join('\n\n');
}

/**
 * One cordis event.
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @param {string} name
 * @param {ts.MethodSignature} member
 * @param {ts.SourceFile} file
 * @param {Map<string, ts.Declaration>} types
 */
function eventSection(sp, name, member, file, types) {
  const params = member.parameters.map((p) => p.getText(file)).join(', ');
  const returns = member.type ? member.type.getText(file) : 'void';
  for (const p of member.parameters) collectSourceTypes(sp, p.type, types);
  const waterfall = member.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'next');
  return [
    `### ${name}`,
    fence('ts', `ctx.on('${name}', (${params}) => ${returns})`),
    docMarkdown(docOf(sp, member)),
    waterfall
      ? `- Dispatch: **waterfall**. A listener calls \`next()\` to pass on and may change what it returns; listeners registered with \`{ prepend: true }\` wrap the others.\n- Declared in: ${code(relPath(sp, file))}`
      : `- Dispatch: **emit** (listeners are notified; their results are ignored).\n- Declared in: ${code(relPath(sp, file))}`,
  ]
    .filter((b) => b.length > 0)
    .join('\n\n');
}

/**
 * @param {import('./ts-source.mjs').SourceProgram} sp
 * @returns {string} the page
 */
export function servicesPage(sp) {
  /** @type {Map<string, ts.Declaration>} */
  const types = new Map();
  const services = FOLDERS.flatMap((f) => cordisAugmentations(sp, f, 'Context'))
    .filter(
      ({ member }) =>
        ts.isPropertySignature(member) && member.name !== undefined && ts.isIdentifier(member.name),
    )
    .map(({ member }) => ({
      name: /** @type {ts.Identifier} */ (member.name).text,
      member: /** @type {ts.PropertySignature} */ (member),
    }))
    .sort(byOrder(SERVICE_ORDER));
  const events = FOLDERS.flatMap((f) => cordisAugmentations(sp, f, 'Events'))
    .filter(
      ({ member }) =>
        ts.isMethodSignature(member) && member.name !== undefined && ts.isStringLiteral(member.name),
    )
    .map(({ member, file }) => ({
      name: /** @type {ts.StringLiteral} */ (member.name).text,
      member: /** @type {ts.MethodSignature} */ (member),
      file,
    }))
    .sort(byOrder(EVENT_ORDER));
  const serviceBlocks = services.map((s) => serviceSection(sp, s.name, s.member, types));
  const eventBlocks = events.map((e) => eventSection(sp, e.name, e.member, e.file, types));
  closeOverSourceTypes(sp, types);
  const typeBlocks = [...types]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([name, decl]) =>
        `### ${name}\n\n${fence('ts', declarationText(decl))}\n\nDeclared in ${code(relPath(sp, decl.getSourceFile()))}.`,
    );
  return page([
    generatedNotice('the declarations and TSDoc in src/host and src/engine (TypeScript compiler API)'),
    '# Services and seams',
    'The reference host and the mode engine are cordis plugins. What they offer other plugins is a set of **services** on the context (`ctx.modes`, `ctx.sessions`, …) and **events** to listen to (`ctx.on(name, listener)`). Services and listeners are effects of the plugin that registers them: disposing it removes them. Types below are the TypeScript declarations; see [session events](session-events.md) for the journal itself.',
    `Services: ${services.map((s) => `[${code(`ctx.${s.name}`)}](#ctx${s.name.toLowerCase()})`).join(', ')}. Events: ${events.map((e) => `[${code(e.name)}](#${e.name.replace(/\//g, '')})`).join(', ')}.`,
    '## Services',
    ...serviceBlocks,
    '## Events',
    'Waterfall listeners receive the value and a `next()` that runs the rest of the chain; an emitted event just notifies. The host contains listener errors: a throwing `session/event` or `agent/created` listener is logged; a throwing `tools/pre-execute` listener denies; a throwing `approval/request` answerer counts as `unavailable` (fail closed).',
    ...eventBlocks,
    '## Types',
    'The types the signatures above mention, as declared in src/.',
    ...typeBlocks,
  ]);
}
