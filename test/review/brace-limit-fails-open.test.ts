/**
 * Review finding (NOT fixed: a semantic choice that lint and its fixtures encode; see the review report): a
 * selector whose braces expand to more than 64 alternatives compiles to *no* alternatives, so the rule it carries
 * decides nothing. Lint reports it as an error, but lint never blocks loading (DESIGN.md section 2), so a running
 * engine silently drops a `deny` rule and a custom mode with `default: allow` lets those tools run. A typo-class
 * mistake widens permission instead of failing closed. `it.fails` pins the current behaviour: when the compiler
 * stops dropping the rule, this test fails and should become a plain `it`.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/compile.js';
import { loadPolicyText } from '../../src/compile/load.js';

describe('review: a deny rule with too many brace alternatives', () => {
  it.fails('still denies what it names, instead of falling through to `default: allow`', () => {
    const servers = Array.from({ length: 65 }, (_, i) => `s${i}`).join(',');
    const text = `mode: guarded\ntools:\n  "mcp__{${servers}}__*": deny\ndefault: allow\n`;
    const { documents, diagnostics } = loadPolicyText(text, 'guarded.yaml');
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const policy = compilePolicies(documents).get('guarded')!;
    expect(policy.decide('mcp__s1__delete_repo').decision).toBe('deny');
  });
});
