/**
 * A table-driven tester for lint rules (ESLint's RuleTester, reduced): `valid` policies give no finding of the
 * rule; each `invalid` case gives exactly the listed findings, in order, with exact positions. Policies are inline
 * YAML loaded through the real parser, validator and loader (`loadPolicyText`); a case whose policy does not load
 * fails, so a typo in a fixture cannot make a test pass vacuously. Real compiler, no mocks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCatalogEntry } from '../../../../src/compile/catalog/catalog.js';
import { lintPolicies } from '../../../../src/compile/lint/lint.js';
import { BUILTIN_PLAN_PATH, loadPolicyText } from '../../../../src/compile/language/load.js';
import type { RuleDefinition } from '../../../../src/compile/lint/rules/define.js';
import type { Diagnostic, SourceDocument } from '../../../../src/compile/types.js';

/** One case: one or more documents (files `a.yaml`, `b.yaml`, … in load order), optionally after the built-in plan. */
export interface Case {
  name?: string;
  policy: string | string[];
  builtin?: boolean;
  catalog?: ToolCatalogEntry[];
}

/** One expected finding. `file` defaults to `a.yaml`. */
export interface Expected {
  messageId: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  file?: string;
  /** The exact message, when the case pins it. */
  message?: string;
}

/**
 * Loads the documents of a case.
 * @returns the valid documents in load order
 */
export function loadCase(c: Case): SourceDocument[] {
  const texts = Array.isArray(c.policy) ? c.policy : [c.policy];
  const loads = texts.map((text, i) => loadPolicyText(text, `${String.fromCharCode(97 + i)}.yaml`));
  if (c.builtin) loads.unshift(loadPolicyText(readFileSync(BUILTIN_PLAN_PATH, 'utf8'), BUILTIN_PLAN_PATH));
  for (const load of loads) {
    const errors = load.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`fixture does not load: ${JSON.stringify(errors)}`);
  }
  return loads.flatMap((l) => l.documents);
}

/**
 * Runs one rule on a case.
 * @returns the rule's findings, sorted
 */
export function runRule(rule: RuleDefinition, c: Case): Diagnostic[] {
  const documents = loadCase(c);
  return lintPolicies(
    { documents, diagnostics: [] },
    { rules: [rule], ...(c.catalog ? { catalog: c.catalog } : {}) },
  );
}

/** Registers the valid and invalid cases of a rule as vitest tests. */
export function testRule(
  rule: RuleDefinition,
  cases: { valid: Case[]; invalid: (Case & { errors: Expected[] })[] },
): void {
  describe(rule.id, () => {
    it('has at least one valid and one invalid case', () => {
      expect(cases.valid.length).toBeGreaterThan(0);
      expect(cases.invalid.length).toBeGreaterThan(0);
    });
    for (const [i, c] of cases.valid.entries()) {
      it(`accepts valid case ${c.name ?? i + 1}`, () => {
        expect(runRule(rule, c)).toEqual([]);
      });
    }
    for (const [i, c] of cases.invalid.entries()) {
      it(`reports invalid case ${c.name ?? i + 1}`, () => {
        expect(c.errors.length).toBeGreaterThan(0);
        const found = runRule(rule, c).map((d, index) => {
          const e = c.errors[index];
          return {
            messageId: d.messageId,
            file: d.file,
            line: d.range?.start.line,
            column: d.range?.start.column,
            ...(e?.endLine !== undefined
              ? { endLine: d.range?.end.line, endColumn: d.range?.end.column }
              : {}),
            ...(e?.message !== undefined ? { message: d.message } : {}),
          };
        });
        const expected = c.errors.map((e) => ({ file: 'a.yaml', ...e }));
        expect(found).toEqual(expected);
      });
    }
  });
}
