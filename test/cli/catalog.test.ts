/**
 * `dsh-mode catalog` writes each tool's `inputSchema`, and `lint --tools` reads it back: a real deployment with
 * the host's built-in tools and a real MCP server (the fixture server over stdio) is catalogued, and lint judges
 * the deployment's argument rules against the schemas it wrote. An `argument:` the tool does not have is found,
 * with the name it declares; one it has is not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/compile/catalog/catalog.js';
import { builtinTools } from '../../src/host/tools/index.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp/fixture-server.mjs');

function deployment(tools: string[]): string {
  return [
    '- name: host',
    '- name: mode',
    '  config:',
    '    modes:',
    '      review:',
    '        tools:',
    ...tools.map((t) => `          ${t}`),
    '        default: deny',
    '- name: mcp',
    '  config:',
    '    servers:',
    `      fx: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}] }`,
    '',
  ].join('\n');
}

describe('catalog → lint --tools', () => {
  it('writes every tool with its inputSchema, and lint checks argument rules against it', () => {
    const dir = makeTree({
      'cordis.yml': deployment([
        // `echo` takes `text`: a typo is found from the schema the catalog wrote.
        'mcp__fx__echo: { argument: txt, commands: { "ls **": allow } }',
        'mcp__fx__write_note: { argument: text, paths: { "notes/**": allow } }',
      ]),
    });
    const written = dshMode(['catalog', '--config', 'cordis.yml', '--out', 'tools.json'], dir);
    expect(written.stderr).toMatch(/^wrote \d+ tools to tools\.json\n$/);
    expect(written.code).toBe(0);

    const raw = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as {
      name: string;
      inputSchema?: unknown;
    }[];
    const schemaOf = new Map(raw.map((t) => [t.name, t.inputSchema]));
    for (const tool of builtinTools) expect(schemaOf.get(tool.name), tool.name).toEqual(tool.parameters);
    expect(schemaOf.get('exit_plan_mode')).toMatchObject({ properties: { plan: { type: 'string' } } });
    expect(schemaOf.get('mcp__fx__echo')).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
    });

    // The reader takes the arguments and their types from what was written.
    const catalog = parseCatalog(readFileSync(join(dir, 'tools.json'), 'utf8'), 'tools.json');
    expect(catalog.diagnostics).toEqual([]);
    const byName = new Map(catalog.tools.map((t) => [t.name, t]));
    expect(byName.get('mcp__fx__echo')?.arguments).toEqual({ text: ['string'] });
    expect(byName.get('bash')?.arguments).toEqual({ command: ['string'], timeout_ms: ['integer'] });

    const lint = json(dshMode(['lint', 'cordis.yml', '--tools', 'tools.json', '--format', 'json'], dir));
    const found = (lint.diagnostics as { rule: string; message: string; help?: string }[]).filter(
      (d) => d.rule === 'unknown-argument',
    );
    expect(found).toMatchObject([
      {
        message:
          '`commands` reads argument `txt`, which tool `mcp__fx__echo` does not have: every call is judged unanalysable',
        help: 'did you mean `argument: text`?',
      },
    ]);
  });

  it('finds nothing without the catalog: an MCP tool has no known schema', () => {
    const dir = makeTree({
      'cordis.yml': deployment(['mcp__fx__echo: { argument: txt, commands: { "ls **": allow } }']),
    });
    const lint = json(dshMode(['lint', 'cordis.yml', '--format', 'json'], dir));
    const rules = (lint.diagnostics as { rule: string }[]).map((d) => d.rule);
    expect(rules).not.toContain('unknown-argument');
  });
});
