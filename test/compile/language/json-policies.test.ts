/**
 * `.json` policy files are JSON: a trailing comma or a `// comment` is a syntax error at file:line:column (the
 * `yaml` parser alone read both as YAML flow and linted them clean), valid JSON reads as the same data JSON.parse
 * builds, and its findings keep their positions. `lint` is run in process on real files.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxError } from '../../../src/compile/language/json-syntax.js';
import { parsePolicyText } from '../../../src/compile/language/parse.js';
import { runCli } from '../../cli/run-in-process.js';
import { makeTree } from '../../cli/run.js';

describe('.json policy files', () => {
  it('a trailing comma is an error at the comma (file:line:column), with a help line', async () => {
    const dir = makeTree({ 'p.json': '{\n  "mode": "review",\n  "tools": { "read": "allow", },\n}\n' });
    const result = await runCli(['lint', 'p.json', '--no-builtin'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      / {2}3:29 {2}error {4}trailing comma before `}`: JSON allows none {2}syntax/,
    );
    expect(result.stdout).toContain('remove the `,` after the last item');
  });

  it('a `// comment` is an error, not a key', async () => {
    const dir = makeTree({ 'p.json': '{\n  // read only\n  "mode": "review",\n  "default": "deny"\n}\n' });
    const out = await runCli(['lint', 'p.json', '--no-builtin', '--format', 'json'], { cwd: dir });
    expect(out.code).toBe(1);
    const [d, ...rest] = (JSON.parse(out.stdout) as { diagnostics: Record<string, unknown>[] }).diagnostics;
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ file: 'p.json', line: 2, column: 3, rule: 'syntax' });
    expect(d!.message).toBe('comment in JSON: JSON has no comments');
  });

  it('the same text named .yaml is still YAML (a flow mapping with a trailing comma is valid there)', async () => {
    const text = '{ "mode": "review", "default": "deny", }\n';
    const dir = makeTree({ 'p.yaml': text, 'p.json': text });
    expect((await runCli(['lint', 'p.yaml', '--no-builtin'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['lint', 'p.json', '--no-builtin'], { cwd: dir })).code).toBe(1);
  });

  it('schema findings in valid JSON keep their positions (one position mapper)', async () => {
    const dir = makeTree({ 'p.json': '{\n  "mode": "review",\n  "tool": { "read": "allow" }\n}\n' });
    const result = await runCli(['lint', 'p.json', '--no-builtin'], { cwd: dir });
    expect(result.stdout).toMatch(/ {2}3:3 {2}error {4}unknown key `tool`: did you mean `tools`\?/);
  });

  it('duplicate keys, which JSON.parse would silently merge, are refused', () => {
    const parsed = parsePolicyText('{"mode": "a", "mode": "b"}', 'p.json');
    expect(parsed.diagnostics.map((d) => [d.code, d.range?.start])).toEqual([
      ['duplicate-key', { line: 1, column: 15 }],
    ]);
  });

  it.each([
    ['{"a": 1', 'expected `}` to close the object, found the end of the file'],
    ['{"a" 1}', 'expected `:` after the property name, found `1`'],
    ['{"a": 1 "b": 2}', 'expected `,` between items, found `"`'],
    ["{'a': 1}", "JSON strings take double quotes, not `'`"],
    ['', 'expected a value, found the end of the file'],
    ['{} {}', 'expected the end of the file after the value, found `{`'],
    ['{"a": # c\n 1}', 'invalid JSON at `#`'],
  ])('%j → %s', (text, message) => {
    expect(jsonSyntaxError(text)?.message).toBe(message);
  });

  it('agrees with JSON.parse on what is JSON, and reads valid JSON as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(jsonSyntaxError(text)).toBeUndefined();
        const parsed = parsePolicyText(text, 'p.json');
        expect(parsed.diagnostics).toEqual([]);
        expect(parsed.data).toEqual(JSON.parse(text));
      }),
    );
    const damaged = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom(',', '//', '/*', "'", ' ', '\u00a0', '}', ']', '0', '"', '\\'),
      )
      .map(
        ([text, at, insert]) =>
          text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)),
      );
    fc.assert(
      fc.property(fc.oneof(damaged, fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(jsonSyntaxError(text) === undefined).toBe(valid);
      }),
    );
  });
});
