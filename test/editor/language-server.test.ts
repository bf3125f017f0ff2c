/**
 * Schema autocompletion proven in a real editor stack: the real `yaml-language-server` (node_modules/.bin) runs
 * as a child process and is driven over stdio by a tiny LSP client, the way VS Code's YAML extension drives it.
 * Real files in a temp folder; the schemas are the repository's own `schema/*.json`, found through the
 * `# yaml-language-server: $schema=` modeline (policy documents) and through the `yaml.schemas` setting
 * (`cordis.yml`). Network schema stores are switched off, as STACK.md requires.
 *
 * LSP positions are 0-based (line, character); the comments beside the fixtures number lines the same way.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadPolicyText } from '../../src/compile/language/load.js';
import { LspClient, type LspDiagnostic } from './lsp-client.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVER = path.join(ROOT, 'node_modules/.bin/yaml-language-server');
const POLICY_SCHEMA = path.join(ROOT, 'schema/policy.schema.json');
const CORDIS_SCHEMA = path.join(ROOT, 'schema/cordis.schema.json');

const MODELINE = `# yaml-language-server: $schema=${POLICY_SCHEMA}`;

/** Line 5: a bad decision at characters 9–14; line 7: an unknown key at 0–6. */
const REVIEW = [
  MODELINE, //                      0
  'mode: review', //                1
  'description: Read only.', //     2
  'tools:', //                      3
  '  read: allow', //               4
  '  write: maybe', //              5
  '  "mcp__*": { decision: deny, reason: No MCP here. }', // 6
  'colour: red', //                 7
  'default: deny', //               8
  '',
].join('\n');

/** An unfinished document: an empty top-level line 2, an empty tool value on line 4, an empty test on line 6. */
const DRAFT = [MODELINE, 'mode: draft', '', 'tools:', '  read: ', 'tests:', '  - ', ''].join('\n');

/** Where the snippets go: an empty document, an empty rule line in `tools`, an empty item in `tests`. */
const NEW_DOCUMENT = [MODELINE, ''].join('\n');
const NEW_RULE = [MODELINE, 'mode: draft', 'tools:', '  ', 'default: deny', ''].join('\n');
const NEW_TEST = [MODELINE, 'mode: draft', 'default: deny', 'tests:', '  - ', ''].join('\n');
/** Argument rules: a rule object with `commands:` (line 5) and `paths:` (line 9). */
const ARGUMENT_RULES = [
  MODELINE,
  'mode: draft',
  'tools:',
  '  bash:',
  '    decision: deny',
  '    commands:',
  '      "git log **": allow',
  '  read:',
  '    paths:',
  '      ".env*": deny',
  '',
].join('\n');

/**
 * Typos inside rules: `decison` in a tool rule (line 3, characters 10–17) and in a path pattern's rule (line 7,
 * 17–24), `reasn` in an effect's rule (line 9, 31–36).
 */
const NESTED_TYPOS = [
  MODELINE, //                                          0
  'mode: nested', //                                    1
  'tools:', //                                          2
  '  bash: { decison: deny }', //                       3
  '  read:', //                                         4
  '    decision: allow', //                             5
  '    paths:', //                                      6
  '      ".env*": { decison: deny, reason: Secrets. }', // 7
  'effects:', //                                        8
  '  readOnly: { decision: allow, reasn: Read only. }', // 9
  'default: deny', //                                   10
  '',
].join('\n');

/** A new plugin entry on line 1. */
const NEW_ENTRY = ['- name: host', '- ', ''].join('\n');

/** Line 4: an unknown key `polices` at 4–11; line 9: a bad decision at 17–22. */
const CORDIS = [
  '- name: host', //                0
  '- name: mode', //                1
  '  config:', //                   2
  '    policies: [policies]', //    3
  '    polices: [more]', //         4
  '    modes:', //                  5
  '      review:', //               6
  '        tools:', //              7
  '          read: allow', //       8
  '          write: maybe', //      9
  '        default: deny', //       10
  '- name: scripted', //            11
  '  config: { script: model-script.yaml }', // 12
  '',
].join('\n');

/** An unfinished deployment: empty values to complete on lines 0, 5 and 3 (the mode config's keys). */
const CORDIS_DRAFT = [
  '- name: ', //                    0
  '- name: mode', //                1
  '  config:', //                   2
  '    ', //                        3
  '- name: mode', //                4
  '  config: { modes: { review: { tools: { read: } } } }', // 5
  '',
].join('\n');

interface TextEdit {
  range: LspDiagnostic['range'];
  newText: string;
}
interface CompletionList {
  items: { label: string; kind?: number; insertText?: string; textEdit?: TextEdit }[];
}
interface Hover {
  contents: { kind: string; value: string };
  range?: LspDiagnostic['range'];
}

let client: LspClient;
let dir: string;
const uris: Record<string, string> = {};
const settings = {
  yaml: {
    validate: true,
    hover: true,
    completion: true,
    schemas: { [pathToFileURL(CORDIS_SCHEMA).href]: ['cordis.yml'] },
    schemaStore: { enable: false },
    kubernetesCRDStore: { enable: false },
  },
  http: { proxyStrictSSL: true },
  '[yaml]': {},
  editor: { tabSize: 2 },
};

async function open(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  const uri = pathToFileURL(file).href;
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  return uri;
}

async function complete(uri: string, line: number, character: number): Promise<string[]> {
  const list = await client.request<CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: { line, character },
  });
  return list.items.map((i) => i.label);
}

/**
 * Accepts the completion item labelled `label` the way an editor does with snippet placeholders left at their
 * defaults: `${1:text}` becomes `text`, `${1|a,b|}` becomes `a`, `$1` nothing. Like VS Code (LSP insert mode
 * `adjustIndentation`), every inserted line after the first gets the leading whitespace of the line the
 * completion is accepted on.
 * @returns the document text after the edit
 */
async function acceptSnippet(uri: string, text: string, line: number, character: number, label: string) {
  const list = await client.request<CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: { line, character },
  });
  const item = list.items.find((i) => i.label === label);
  if (!item?.textEdit)
    throw new Error(
      `no \`${label}\` at ${line}:${character}: ${JSON.stringify(list.items.map((i) => i.label))}`,
    );
  const expanded = item.textEdit.newText
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1')
    .replace(/\$\d+/g, '')
    .replace(/\\\$/g, '$');
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const { start, end } = item.textEdit.range;
  const indent = /^[ \t]*/.exec(lines[start.line] ?? '')![0];
  return text.slice(0, offset(start)) + expanded.replace(/\n/g, `\n${indent}`) + text.slice(offset(end));
}

async function hover(uri: string, line: number, character: number): Promise<string> {
  const result = await client.request<Hover | null>('textDocument/hover', {
    textDocument: { uri },
    position: { line, character },
  });
  return result?.contents.value ?? '';
}

/** Waits until the server has validated against the schema (its diagnostics name their schema source). */
function schemaDiagnostics(uri: string): Promise<LspDiagnostic[]> {
  return client.waitForDiagnostics(uri, (d) => d.some((x) => x.source?.startsWith('yaml-schema')));
}

function simplify(d: LspDiagnostic): { line: number; from: number; to: number; message: string } {
  return {
    line: d.range.start.line,
    from: d.range.start.character,
    to: d.range.end.character,
    message: d.message,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'dsh-lsp-'));
  client = new LspClient(SERVER, ['--stdio'], {
    'workspace/configuration': (params) =>
      (params as { items: { section?: string }[] }).items.map(
        (item) => settings[item.section as keyof typeof settings] ?? null,
      ),
  });
  await client.request('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'policies' }],
    capabilities: {
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
      textDocument: {
        completion: {
          completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] },
        },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        publishDiagnostics: {},
      },
    },
  });
  client.notify('initialized', {});
  client.notify('workspace/didChangeConfiguration', { settings });
  uris.review = await open('review.yaml', REVIEW);
  uris.draft = await open('draft.yaml', DRAFT);
  uris.newDocument = await open('snippets/new.yaml', NEW_DOCUMENT);
  uris.newRule = await open('snippets/rule.yaml', NEW_RULE);
  uris.newTest = await open('snippets/test.yaml', NEW_TEST);
  uris.argumentRules = await open('arguments.yaml', ARGUMENT_RULES);
  uris.newArgumentRule = await open('snippets/argument-rule.yaml', NEW_RULE);
  uris.nestedTypos = await open('nested.yaml', NESTED_TYPOS);
  uris.cordis = await open('deploy/cordis.yml', CORDIS);
  uris.cordisDraft = await open('draft/cordis.yml', CORDIS_DRAFT);
  uris.newEntry = await open('entry/cordis.yml', NEW_ENTRY);
});

afterAll(async () => {
  await client?.close();
});

describe('yaml-language-server with schema/policy.schema.json (modeline)', () => {
  it('offers allow, deny and ask as a tool’s value', async () => {
    const labels = await complete(uris.draft!, 4, 8);
    expect(labels).toEqual(expect.arrayContaining(['allow', 'deny', 'ask']));
  });

  it('offers the document’s keys not yet written at the top level', async () => {
    const schema = JSON.parse(await readFile(POLICY_SCHEMA, 'utf8')) as {
      properties: Record<string, unknown>;
    };
    const expected = Object.keys(schema.properties).filter(
      (k) => !['mode', 'tools', 'tests', '$schema'].includes(k),
    );
    const labels = await complete(uris.draft!, 2, 0);
    expect(labels).toEqual(expect.arrayContaining(expected));
    expect(labels).not.toContain('mode');
  });

  it('inserts a new document, a new rule and a new test case that the policy language accepts', async () => {
    const documentText = await acceptSnippet(uris.newDocument!, NEW_DOCUMENT, 1, 0, 'a policy document');
    const document = loadPolicyText(documentText, 'new.yaml');
    expect(document.diagnostics).toEqual([]);
    expect(document.documents[0]!.document).toMatchObject({
      mode: 'review',
      tools: { read: 'allow' },
      default: 'deny',
    });

    const ruleText = await acceptSnippet(uris.newRule!, NEW_RULE, 3, 2, 'a rule');
    const rule = loadPolicyText(ruleText, 'rule.yaml');
    expect(rule.diagnostics).toEqual([]);
    expect(rule.documents[0]!.document.tools).toEqual({ tool: 'allow' });

    const testText = await acceptSnippet(uris.newTest!, NEW_TEST, 4, 4, 'a test case');
    const test = loadPolicyText(testText, 'test.yaml');
    expect(test.diagnostics).toEqual([]);
    expect(test.documents[0]!.document.tests).toEqual([{ tool: 'write', expect: 'deny' }]);
  });

  it('inserts rules with command and path patterns that the policy language accepts', async () => {
    const text = await acceptSnippet(
      uris.newArgumentRule!,
      NEW_RULE,
      3,
      2,
      'a shell tool with command rules',
    );
    const loaded = loadPolicyText(text, 'argument-rule.yaml');
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.documents[0]!.document.tools).toEqual({
      bash: { decision: 'deny', commands: { 'git log **': 'allow' } },
    });
  });

  it('shows the descriptions of `commands` and `paths` on hover, and takes both without a finding', async () => {
    const schema = JSON.parse(await readFile(POLICY_SCHEMA, 'utf8')) as {
      definitions: { toolRuleObject: { properties: Record<string, { markdownDescription: string }> } };
    };
    const props = schema.definitions.toolRuleObject.properties;
    expect(await hover(uris.argumentRules!, 5, 6)).toContain(props.commands!.markdownDescription);
    expect(await hover(uris.argumentRules!, 8, 6)).toContain(props.paths!.markdownDescription);
  });

  it('shows the description of `default` on hover', async () => {
    const schema = JSON.parse(await readFile(POLICY_SCHEMA, 'utf8')) as {
      properties: { default: { markdownDescription: string } };
    };
    const text = await hover(uris.review!, 8, 2);
    expect(text).toContain(schema.properties.default.markdownDescription);
    expect(text).toContain('`ask`');
  });

  it('flags an unknown key and a bad decision at their exact ranges, and nothing else', async () => {
    const diagnostics = (await schemaDiagnostics(uris.review!)).map(simplify);
    expect(diagnostics).toEqual(
      expect.arrayContaining([
        { line: 5, from: 9, to: 14, message: expect.stringMatching(/allow.*deny.*ask/) },
        { line: 7, from: 0, to: 6, message: expect.stringContaining('colour') },
      ]),
    );
    expect(diagnostics).toHaveLength(2);
  });
});

describe('yaml-language-server: a typo inside a rule', () => {
  it('names the unknown key where it is, as lint does, and never says the rule should be a string', async () => {
    const diagnostics = (await schemaDiagnostics(uris.nestedTypos!)).map(simplify);
    const unknown = diagnostics.filter((d) => /not allowed/.test(d.message)).sort((a, b) => a.line - b.line);
    expect(unknown).toEqual([
      { line: 3, from: 10, to: 17, message: expect.stringContaining('decison') },
      { line: 7, from: 17, to: 24, message: expect.stringContaining('decison') },
      { line: 9, from: 31, to: 36, message: expect.stringContaining('reasn') },
    ]);
    // The two rules left without `decision` say so; nothing claims a rule must be a string or a decision.
    expect(diagnostics.filter((d) => !/not allowed/.test(d.message)).map((d) => d.message)).toEqual([
      expect.stringContaining('decision'),
      expect.stringContaining('decision'),
    ]);
    for (const d of diagnostics) expect(d.message).not.toMatch(/Incorrect type|Value is not accepted/);
    // dsh-mode lint reports the same unknown keys at the same places (its columns are 1-based), with the fix.
    const lint = loadPolicyText(NESTED_TYPOS, 'nested.yaml').diagnostics.filter(
      (d) => d.code === 'unknown-key',
    );
    expect(lint.map((d) => [d.range!.start.line - 1, d.range!.start.column - 1, d.message])).toEqual([
      [3, 10, 'unknown key `decison` in `tools.bash`: did you mean `decision`?'],
      [7, 17, 'unknown key `decison` in `tools.read.paths..env*`: did you mean `decision`?'],
      [9, 31, 'unknown key `reasn` in `effects.readOnly`: did you mean `reason`?'],
    ]);
  });
});

describe('yaml-language-server with schema/cordis.schema.json (yaml.schemas setting)', () => {
  it('offers the plugin names as an entry’s name', async () => {
    const labels = await complete(uris.cordisDraft!, 0, 8);
    expect(labels).toEqual(expect.arrayContaining(['demo', 'host', 'mode', 'openai', 'scripted']));
  });

  it('types the mode plugin’s config: its keys, and allow, deny, ask inside an inline mode', async () => {
    expect(await complete(uris.cordisDraft!, 3, 4)).toEqual(expect.arrayContaining(['policies', 'modes']));
    const value = CORDIS_DRAFT.split('\n')[5]!.indexOf('read:') + 'read: '.length;
    expect(await complete(uris.cordisDraft!, 5, value)).toEqual(
      expect.arrayContaining(['allow', 'deny', 'ask']),
    );
  });

  it('inserts the mode plugin and an inline mode as new entries', async () => {
    const plugin = parse(await acceptSnippet(uris.newEntry!, NEW_ENTRY, 1, 2, 'the mode plugin'));
    expect(plugin).toEqual([{ name: 'host' }, { name: 'mode', config: { policies: ['policies'] } }]);
    const inline = parse(await acceptSnippet(uris.newEntry!, NEW_ENTRY, 1, 2, 'an inline mode'));
    expect(inline[1]).toEqual({
      name: 'mode',
      config: {
        modes: {
          review: { description: 'What this mode is for', tools: { read: 'allow' }, default: 'deny' },
        },
      },
    });
  });

  it('shows descriptions on hover: the plugin name, `policies`, and `default` inside an inline mode', async () => {
    expect(await hover(uris.cordis!, 1, 9)).toContain('mode engine');
    expect(await hover(uris.cordis!, 3, 6)).toMatch(/Policy files or folders/);
    expect(await hover(uris.cordis!, 10, 10)).toMatch(/\*\*abstains\*\*.*`allow`.*`deny`.*`ask`/s);
  });

  it('flags an unknown config key and a bad decision at their exact ranges, and nothing else', async () => {
    const diagnostics = (await schemaDiagnostics(uris.cordis!)).map(simplify);
    expect(diagnostics).toEqual(
      expect.arrayContaining([
        { line: 4, from: 4, to: 11, message: expect.stringContaining('polices') },
        { line: 9, from: 17, to: 22, message: expect.stringMatching(/allow.*deny.*ask/) },
      ]),
    );
    expect(diagnostics).toHaveLength(2);
  });
});
