/**
 * JSON policies in a real JSON editor stack: `vscode-json-languageservice`, the engine of VS Code's JSON support
 * and of the `vscode-json-languageserver` that Neovim, Helix and Zed run. Real files in a temp project with the
 * schemas where an install puts them (`node_modules/dsh-mode/schema/`), read from disk through `file:` URLs as an
 * editor reads them, and found the two ways docs/editors.md shows: the document's relative `$schema` (resolved
 * from the document, as editors do) and a `json.schemas`-style mapping by file name with an absolute `file:` URL.
 *
 * Positions are 0-based (line, character), as in LSP.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  getLanguageService,
  type CompletionItem,
  type LanguageService,
  type TextDocument as ServiceDocument,
} from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { loadPolicyText } from '../../src/compile/language/load.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCHEMA = JSON.parse(readFileSync(path.join(ROOT, 'schema/policy.schema.json'), 'utf8')) as {
  properties: Record<string, { markdownDescription: string }>;
};

let project: string;
let schemaUrl: string;
const fetched: string[] = [];

/** The service as an editor configures it: schemas read from disk, relative `$schema` resolved from the file. */
function service(mapping?: { fileMatch: string[]; uri: string }): LanguageService {
  const ls = getLanguageService({
    schemaRequestService: async (uri) => {
      fetched.push(uri);
      return readFileSync(fileURLToPath(uri), 'utf8');
    },
    workspaceContext: { resolveRelativePath: (relative, resource) => new URL(relative, resource).href },
  });
  ls.configure({ validate: true, allowComments: false, schemas: mapping ? [mapping] : [] });
  return ls;
}

function open(name: string, text: string): ServiceDocument {
  const file = path.join(project, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return TextDocument.create(pathToFileURL(file).href, 'json', 1, text);
}

async function hover(ls: LanguageService, doc: ServiceDocument, line: number, character: number) {
  const result = await ls.doHover(doc, { line, character }, ls.parseJSONDocument(doc));
  const contents = result?.contents;
  return (Array.isArray(contents) ? contents : [contents])
    .map((c) => (typeof c === 'string' ? c : (c?.value ?? '')))
    .join('\n');
}

async function complete(ls: LanguageService, doc: ServiceDocument, line: number, character: number) {
  const list = await ls.doComplete(doc, { line, character }, ls.parseJSONDocument(doc));
  return list?.items ?? [];
}

/** Applies a completion as an editor does, taking every placeholder's default (the first choice). */
function accept(doc: ServiceDocument, item: CompletionItem): string {
  const text = doc.getText();
  const edit = item.textEdit as {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    newText: string;
  };
  const expanded = edit.newText
    .replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\d+/g, '');
  return text.slice(0, doc.offsetAt(edit.range.start)) + expanded + text.slice(doc.offsetAt(edit.range.end));
}

const REF = '  "$schema": "../node_modules/dsh-mode/schema/policy.schema.json",';

const POLICY = (schema: string) =>
  [
    '{', //                                              0
    `  "$schema": "${schema}",`, //                       1
    '  "mode": "review",', //                            2
    '  "tools": { "read": "allow", "write": "maybe" },', // 3
    '  "effects": { "readOnly": "allow" },', //          4
    '  "colour": "red",', //                             5
    '  "default": "deny"', //                            6
    '}',
    '',
  ].join('\n');

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'dsh-json-ls-'));
  cpSync(path.join(ROOT, 'schema'), path.join(project, 'node_modules/dsh-mode/schema'), { recursive: true });
  schemaUrl = pathToFileURL(path.join(project, 'node_modules/dsh-mode/schema/policy.schema.json')).href;
});

describe('a JSON policy with a relative $schema (docs/editors.md)', () => {
  const ls = () => service();
  const doc = () =>
    open('policies/review.json', POLICY('../node_modules/dsh-mode/schema/policy.schema.json'));

  it('finds the schema through the path relative to the file', async () => {
    fetched.length = 0;
    await ls().doValidation(doc(), ls().parseJSONDocument(doc()));
    expect(fetched).toEqual([schemaUrl]);
  });

  it('shows each key’s own description on hover, `default` with its abstain rule', async () => {
    const svc = ls();
    const document = doc();
    expect(await hover(svc, document, 6, 4)).toContain(SCHEMA.properties.default!.markdownDescription);
    expect(await hover(svc, document, 6, 4)).toContain('**abstains**');
    for (const [line, key] of [
      [2, 'mode'],
      [3, 'tools'],
      [4, 'effects'],
    ] as const) {
      expect(await hover(svc, document, line, 4), key).toContain(SCHEMA.properties[key]!.markdownDescription);
    }
  });

  it('flags an unknown key and a bad decision at their exact ranges, and nothing else', async () => {
    const svc = ls();
    const document = doc();
    const found = await svc.doValidation(document, svc.parseJSONDocument(document));
    const at = found.map((d) => [d.range.start.line, d.range.start.character, d.range.end.character]);
    expect(at).toEqual(
      expect.arrayContaining([
        [3, 39, 46],
        [5, 2, 10],
      ]),
    );
    expect(found).toHaveLength(2);
    // dsh-mode lint finds the same two, at the same places (its columns are 1-based).
    const lint = loadPolicyText(document.getText(), 'review.json').diagnostics;
    expect(lint.map((d) => [d.code, d.range!.start.line - 1, d.range!.start.column - 1])).toEqual([
      ['invalid-decision', 3, 39],
      ['unknown-key', 5, 2],
    ]);
  });

  it('offers the keys not yet written, and allow, deny and ask as a decision', async () => {
    const svc = ls();
    const draft = open(
      'policies/draft.json',
      `{\n${REF}\n  "mode": "draft",\n  \n  "tools": { "read":  }\n}\n`,
    );
    const keys = (await complete(svc, draft, 3, 2)).map((i) => i.label);
    expect(keys).toEqual(expect.arrayContaining(['description', 'section', 'effects', 'default', 'tests']));
    expect(keys).not.toContain('mode');
    const values = (await complete(svc, draft, 4, 21)).map((i) => i.label);
    expect(values).toEqual(expect.arrayContaining(['"allow"', '"deny"', '"ask"']));
  });

  it('names an unknown key inside a rule, as lint does, and never says the rule should be a string', async () => {
    const svc = ls();
    const lines = [
      '{',
      REF,
      '  "mode": "nested",',
      '  "tools": { "bash": { "decison": "deny" }, "read": { "decision": "allow", "paths": { ".env*": { "decison": "deny" } } } },',
      '  "effects": { "readOnly": { "decision": "allow", "reasn": "Read only." } },',
      '  "default": "deny"',
      '}',
      '',
    ];
    const document = open('policies/nested.json', lines.join('\n'));
    const found = await svc.doValidation(document, svc.parseJSONDocument(document));
    for (const d of found) expect(d.message).not.toMatch(/Incorrect type|Value is not accepted/);
    const at = (line: number, key: string, from = 0) => [line, lines[line]!.indexOf(`"${key}"`, from)];
    const unknown = found
      .filter((d) => /not allowed/.test(d.message))
      .map((d) => [d.range.start.line, d.range.start.character, d.message]);
    expect(unknown).toEqual([
      [...at(3, 'decison'), 'Property decison is not allowed.'],
      [...at(3, 'decison', lines[3]!.indexOf('.env*')), 'Property decison is not allowed.'],
      [...at(4, 'reasn'), 'Property reasn is not allowed.'],
    ]);
    // The rules left without `decision` say so, and that is all.
    expect(found.filter((d) => !/not allowed/.test(d.message)).map((d) => d.message)).toEqual([
      'Missing property "decision".',
      'Missing property "decision".',
    ]);
    // dsh-mode lint names the same keys at the same places, with the key they meant.
    const lint = loadPolicyText(document.getText(), 'nested.json').diagnostics.filter(
      (d) => d.code === 'unknown-key',
    );
    expect(lint.map((d) => [d.range!.start.line - 1, d.range!.start.column - 1])).toEqual(
      unknown.map(([line, character]) => [line, character]),
    );
    expect(lint.map((d) => d.message.replace(/ in `[^`]*`/, ''))).toEqual([
      'unknown key `decison`: did you mean `decision`?',
      'unknown key `decison`: did you mean `decision`?',
      'unknown key `reasn`: did you mean `reason`?',
    ]);
  });

  it('offers the decisions and the rule snippets as a tool’s value', async () => {
    const svc = ls();
    const draft = open('policies/value.json', `{\n${REF}\n  "mode": "draft",\n  "tools": { "bash":  }\n}\n`);
    const labels = (await complete(svc, draft, 3, 20)).map((i) => i.label);
    expect(labels).toEqual(
      expect.arrayContaining(['"allow"', '"deny"', '"ask"', 'a decision with a reason', 'command rules']),
    );
  });

  it('inserts test cases that the policy language accepts: an array for `tests`, an object in it', async () => {
    const svc = ls();
    const atValue = open(
      'policies/tests.json',
      `{\n${REF}\n  "mode": "draft",\n  "default": "deny",\n  "tests": \n}\n`,
    );
    const list = (await complete(svc, atValue, 4, 11)).find((i) => i.label === 'a list of test cases');
    expect(list, 'a list of test cases').toBeDefined();
    // The object snippets belong inside the array, not at the value of `tests`.
    expect((await complete(svc, atValue, 4, 11)).map((i) => i.label)).not.toContain('a test case');
    const filled = loadPolicyText(accept(atValue, list!), 'tests.json');
    expect(filled.diagnostics).toEqual([]);
    expect(filled.documents[0]!.document.tests).toEqual([{ tool: 'write', expect: 'deny' }]);

    const inArray = open(
      'policies/item.json',
      `{\n${REF}\n  "mode": "draft",\n  "default": "deny",\n  "tests": [\n    \n  ]\n}\n`,
    );
    const item = (await complete(svc, inArray, 5, 4)).find((i) => i.label === 'a test case');
    expect(item, 'a test case').toBeDefined();
    const added = loadPolicyText(accept(inArray, item!), 'item.json');
    expect(added.diagnostics).toEqual([]);
    expect(added.documents[0]!.document.tests).toEqual([{ tool: 'write', expect: 'deny' }]);
  });
});

describe('a json.schemas mapping by file name (docs/editors.md)', () => {
  it('works with the absolute file: URL of the schema, for a file without $schema', async () => {
    const mapped = service({ fileMatch: ['policies/*.json'], uri: schemaUrl });
    const document = open(
      'policies/plain.json',
      '{\n  "mode": "review",\n  "colour": 1,\n  "default": "deny"\n}\n',
    );
    const found = await mapped.doValidation(document, mapped.parseJSONDocument(document));
    expect(found.map((d) => d.range.start.line)).toEqual([2]);
    expect(await hover(mapped, document, 3, 4)).toContain('**abstains**');
  });
});
