import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../../src/compile/catalog/catalog.js';
import { compilePolicies } from '../../../../src/compile/decide/compile.js';
import { loadPolicyText } from '../../../../src/compile/language/load.js';
import rule from '../../../../src/compile/lint/rules/unknown-argument.js';
import { authorize } from '../../../../src/engine/authorize.js';
import { testRule } from './rule-tester.js';

const CATALOG = parseCatalog(
  JSON.stringify({
    server: 'fs',
    tools: [
      { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'run', inputSchema: { type: 'object', properties: { args: { type: 'array' }, cwd: {} } } },
      { name: 'opaque' },
    ],
  }),
  'tools.json',
).tools;

const rule1 = (tool: string, argument: string | undefined, kind = 'paths') =>
  [
    'mode: review',
    'tools:',
    `  ${tool}:`,
    ...(argument === undefined ? [] : [`    argument: ${argument}`]),
    `    ${kind}:`,
    '      "x*": deny',
    '',
  ].join('\n');

testRule(rule, {
  valid: [
    { name: 'built-in tools take their default argument', policy: rule1('read', undefined) },
    { name: 'bash reads command', policy: rule1('bash', undefined, 'commands') },
    { name: 'a catalogued string argument', policy: rule1('mcp__fs__read_file', 'path'), catalog: CATALOG },
    {
      name: 'an argument whose schema names no type',
      policy: rule1('mcp__fs__run', 'cwd'),
      catalog: CATALOG,
    },
    {
      name: 'a tool without a schema is not checked',
      policy: rule1('mcp__fs__opaque', 'x'),
      catalog: CATALOG,
    },
    { name: 'a tool outside the catalog is not checked', policy: rule1('mcp__gh__read', 'path') },
  ],
  invalid: [
    {
      name: 'a built-in tool, without a catalog',
      policy: rule1('read', 'file'),
      errors: [
        {
          messageId: 'missing',
          line: 4,
          column: 5,
          message:
            '`paths` reads argument `file`, which tool `read` does not have: every call is judged unanalysable',
        },
      ],
    },
    {
      name: 'an MCP tool without the default `path`, near a declared one',
      policy: rule1('mcp__fs__read_file', 'paht'),
      catalog: CATALOG,
      errors: [{ messageId: 'missingNear', line: 4, column: 5 }],
    },
    {
      name: 'the default argument on a tool that names it otherwise',
      policy: rule1('mcp__fs__*', undefined),
      catalog: CATALOG,
      errors: [
        {
          messageId: 'missing',
          line: 4,
          column: 5,
          message:
            '`paths` reads argument `path`, which tool `mcp__fs__run` does not have: every call is judged unanalysable',
        },
      ],
    },
    {
      name: 'an argument that is not a string',
      policy: rule1('mcp__fs__run', 'args', 'commands'),
      catalog: CATALOG,
      errors: [
        {
          messageId: 'notString',
          line: 4,
          column: 5,
          message:
            '`commands` reads argument `args` of tool `mcp__fs__run`, which its schema types as `array`, not a string: every call is judged unanalysable',
        },
      ],
    },
  ],
});

describe('unknown-argument claims', () => {
  it('a catalog keeps each tool’s declared arguments', () => {
    expect(CATALOG.map((t) => [t.name, t.arguments])).toEqual([
      ['mcp__fs__read_file', { path: ['string'] }],
      ['mcp__fs__run', { args: ['array'], cwd: [] }],
      ['mcp__fs__opaque', undefined],
    ]);
  });

  it('a rule on a missing argument never allows', () => {
    const text = rule1('read', 'file')
      .replace('"x*": deny', '"**": allow')
      .replace('  read:\n', '  read:\n    decision: allow\n');
    const policies = compilePolicies(loadPolicyText(text, 'p.yaml').documents);
    const verdict = authorize(policies, 'review', { name: 'read', arguments: { path: 'src/a' } });
    expect(verdict.decision).toBe('ask');
  });
});
