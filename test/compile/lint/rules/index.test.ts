/**
 * The rule set as a whole (ESLint's `checkRuleFiles`): the registry equals the folder, is sorted, each rule's id is
 * its file name, each rule has a test table, its messages follow the wording rules, and its documented failing
 * example is reported while the passing one is not.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../../../../src/compile/lint/rules/index.js';
import { runRule } from './rule-tester.js';

const SRC = join(import.meta.dirname, '../../../../src/compile/lint/rules');
const SUPPORT = new Set(['define.ts', 'index.ts']);
const ruleFiles = readdirSync(SRC)
  .filter((f) => f.endsWith('.ts') && !SUPPORT.has(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
/** The catalog that catalog rules' docs examples are written against. */
const DOCS_CATALOG = [{ name: 'read' }, { name: 'write' }];

describe('rules/index.ts', () => {
  it('registers every rule file, in sorted order', () => {
    expect(Object.keys(rules)).toEqual(ruleFiles);
  });

  it('has a test table for every rule', () => {
    const tests = readdirSync(import.meta.dirname).filter(
      (f) => f.endsWith('.test.ts') && f !== 'index.test.ts',
    );
    expect(tests.map((f) => f.replace(/\.test\.ts$/, '')).sort()).toEqual(ruleFiles);
  });

  for (const [id, rule] of Object.entries(rules)) {
    describe(id, () => {
      it('has its file name as id', () => {
        expect(rule.id).toBe(id);
        expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      });

      it('words its messages by the rules: one lowercase sentence, no final period, no line break', () => {
        expect(Object.keys(rule.meta.messages).length).toBeGreaterThan(0);
        for (const [messageId, template] of Object.entries(rule.meta.messages)) {
          expect(messageId).toMatch(/^[a-z][a-zA-Z]*$/);
          for (const text of [template.text, template.help ?? 'x']) {
            expect(text).not.toMatch(/\.$|\n/);
            expect(text).toMatch(/^[a-z`{]/);
          }
        }
      });

      it('reports its documented failing example and not the passing one', () => {
        const catalog = { catalog: DOCS_CATALOG };
        const { before } = rule.meta.docs;
        const policy = (text: string) => (before === undefined ? text : [before, text]);
        expect(runRule(rule, { policy: policy(rule.meta.docs.failing), ...catalog }).length).toBeGreaterThan(
          0,
        );
        expect(runRule(rule, { policy: policy(rule.meta.docs.passing), ...catalog })).toEqual([]);
      });
    });
  }
});
