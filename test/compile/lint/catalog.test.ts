/** `parseCatalog`: the two catalog shapes, MCP annotation names, and every bad catalog as a diagnostic. */
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../src/compile/catalog/catalog.js';

describe('parseCatalog', () => {
  it('reads an array of tools with short hint names', () => {
    const text = JSON.stringify([{ name: 'read', annotations: { readOnly: true } }, { name: 'write' }]);
    expect(parseCatalog(text, 't.json')).toEqual({
      tools: [{ name: 'read', hints: { readOnly: true } }, { name: 'write' }],
      diagnostics: [],
    });
  });

  it('reads an MCP tools/list result, mapping MCP hint names and ignoring other annotations', () => {
    const text = JSON.stringify({
      tools: [
        {
          name: 'list_issues',
          description: 'x',
          inputSchema: { type: 'object' },
          annotations: {
            title: 'List',
            readOnlyHint: true,
            openWorldHint: false,
            destructiveHint: false,
            idempotentHint: true,
          },
        },
      ],
      nextCursor: 'abc',
    });
    expect(parseCatalog(text, 't.json').tools).toEqual([
      {
        name: 'list_issues',
        hints: { readOnly: true, openWorld: false, destructive: false, idempotent: true },
      },
    ]);
  });

  it('treats `__proto__` as an ordinary tool name and annotation key', () => {
    const text = '[{"name": "__proto__", "annotations": {"__proto__": 1, "readOnlyHint": true}}]';
    expect(parseCatalog(text, 't.json').tools).toEqual([{ name: '__proto__', hints: { readOnly: true } }]);
  });

  it.each([
    ['not JSON', '{tools', /^catalog is not valid JSON: /],
    [
      'neither shape',
      '{"items": []}',
      /^catalog must be an array of tools or an object with a `tools` array$/,
    ],
    ['a tool without a name', '[{"title": "x"}]', /^catalog entry 0 has no `name` string$/],
    [
      'annotations that are not an object',
      '[{"name": "a", "annotations": []}]',
      /^`annotations` of tool `a` must be an object$/,
    ],
    [
      'a hint that is not boolean',
      '{"tools": [{"name": "a", "annotations": {"readOnlyHint": "yes"}}]}',
      /^annotation `readOnlyHint` of tool `a` must be true or false$/,
    ],
  ])('reports %s as an invalid-catalog error', (_, text, message) => {
    const result = parseCatalog(text, 't.json');
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({
      code: 'invalid-catalog',
      severity: 'error',
      file: 't.json',
    });
    expect(result.diagnostics[0]!.message).toMatch(message);
  });
});
