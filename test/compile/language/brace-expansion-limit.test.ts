/**
 * The brace-expansion limit fails closed: a selector whose braces expand to more than 64 alternatives (lint reports
 * that as an error) still compiles, up to 1,024 alternatives, so a `deny` it carries decides what it names even
 * under `default: allow`; a selector beyond that refuses the whole file, like any other hostile-input limit. A
 * rule is never silently dropped (an earlier compiler expanded such a selector to no alternatives at all).
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../../src/compile/decide/compile.js';
import { loadPolicyText } from '../../../src/compile/language/load.js';

const servers = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`).join(',');

describe('a deny rule with too many brace alternatives', () => {
  it('still denies what it names, instead of falling through to `default: allow`', () => {
    const text = `mode: guarded\ntools:\n  "mcp__{${servers(65)}}__*": deny\ndefault: allow\n`;
    const { documents, diagnostics } = loadPolicyText(text, 'guarded.yaml');
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const policy = compilePolicies(documents).get('guarded')!;
    expect(policy.decide('mcp__s1__delete_repo').decision).toBe('deny');
    expect(policy.decide('mcp__s64__delete_repo').decision).toBe('deny');
    expect(policy.decide('mcp__other__delete_repo').decision).toBe('allow');
  });

  it('refuses the file when the braces expand beyond what the compiler expands', () => {
    const text = `mode: guarded\ntools:\n  read: allow\n  "mcp__{${servers(40)}}__{${servers(40)}}": deny\ndefault: allow\n`;
    const { documents, diagnostics } = loadPolicyText(text, 'guarded.yaml');
    expect(documents).toEqual([]);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'too-large',
        severity: 'error',
        file: 'guarded.yaml',
        range: expect.objectContaining({ start: { line: 4, column: 3 } }),
        message: expect.stringContaining('expands to more than 1024 brace alternatives: the file is refused'),
      }),
    ]);
  });

  it('refuses a selector longer than 4,096 characters', () => {
    const text = `mode: guarded\ntools:\n  "${'x'.repeat(4097)}": deny\ndefault: allow\n`;
    const { documents, diagnostics } = loadPolicyText(text, 'guarded.yaml');
    expect(documents).toEqual([]);
    // YAML itself caps implicit keys at 1,024 characters; the schema caps selectors at 4,096 for JSON files.
    expect(diagnostics.map((d) => [d.severity, d.range?.start.line])).toEqual([['error', 3]]);
    const json = JSON.stringify({ mode: 'guarded', tools: { ['x'.repeat(4097)]: 'deny' }, default: 'allow' });
    const fromJson = loadPolicyText(json, 'guarded.json');
    expect(fromJson.documents).toEqual([]);
    expect(fromJson.diagnostics.map((d) => [d.code, d.severity])).toEqual([['schema', 'error']]);
  });
});
