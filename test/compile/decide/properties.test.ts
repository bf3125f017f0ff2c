// Properties of the policy language, with fast-check over generated documents (valid by construction, checked with ajv):
// the ceiling never widens, key order never matters, visibility is "not deny", memo = direct resolution.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicies, type Decision, type Hints, type PolicyDocument } from '../../../src/compile/api.js';
import { DEFAULT_DENY_RULE } from '../../../src/compile/decide/document.js';
import { type SourceDocument } from '../../../src/compile/types.js';
import { resolveComposed } from '../../../src/compile/decide/compile.js';
import {
  compareRestrictiveness,
  compileDocument,
  resolveInDocument,
} from '../../../src/compile/decide/document.js';
import { policyValidator } from '../../../src/compile/language/validate.js';

const NAMES = ['a', 'b', 'ab', 'ba', 'abc', 'x', '__proto__', 'constructor', 'wébfetch', 'a/b', 'a.b'];
const SELECTORS = [
  'a',
  'b',
  'ab',
  'x',
  '__proto__',
  'constructor',
  'a*',
  '*b',
  '*',
  'a?',
  '{a,b}',
  '{ab,x*}',
  '[ab]*',
  'a/*',
  '*.b',
  'wéb*',
];
const decision = fc.constantFrom<Decision>('allow', 'deny', 'ask');
const ruleValue = fc.oneof(decision, fc.record({ decision, reason: fc.constantFrom('r1', 'r2') }));
const hints: fc.Arbitrary<Hints | undefined> = fc.option(
  fc.record(
    { readOnly: fc.boolean(), destructive: fc.boolean(), idempotent: fc.boolean(), openWorld: fc.boolean() },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
const documentArb: fc.Arbitrary<PolicyDocument> = fc.record(
  {
    mode: fc.constant('m'),
    tools: fc.dictionary(fc.constantFrom(...SELECTORS), ruleValue, { maxKeys: 6 }),
    effects: fc.record(
      { readOnly: ruleValue, destructive: ruleValue, idempotent: ruleValue, openWorld: ruleValue },
      { requiredKeys: [] },
    ),
    default: decision,
  },
  { requiredKeys: ['mode'] },
);

function source(document: PolicyDocument, file = 'gen.yaml'): SourceDocument {
  expect(policyValidator()(document)).toBe(true);
  return { file, document, locate: () => undefined };
}

function shuffled<T extends object>(obj: T | undefined, order: number[]): T | undefined {
  if (!obj) return obj;
  const entries = Object.entries(obj);
  const keyed = entries.map((e, i) => [order[i % order.length]! + i / 1000, e] as const);
  keyed.sort((x, y) => x[0] - y[0]);
  const out: Record<string, unknown> = {};
  for (const [, [k, v]] of keyed)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out as T;
}

describe('policy language: ceiling (property)', () => {
  // "Decided" matters: when no document decided, the built-in default denies, and a new document that decides
  // is the first decision, not a widening (a document without `default` abstains, the policy language).
  it('adding a document never widens any decision a document made, wherever it is inserted', () => {
    fc.assert(
      fc.property(
        fc.array(documentArb, { minLength: 1, maxLength: 3 }),
        documentArb,
        fc.nat(3),
        fc.constantFrom(...NAMES),
        hints,
        (docs, extra, at, name, h) => {
          const before = compilePolicies(docs.map((d) => source(d))).get('m')!;
          const withExtra = [...docs];
          withExtra.splice(at % (docs.length + 1), 0, extra);
          const after = compilePolicies(withExtra.map((d) => source(d))).get('m')!;
          const was = before.decide(name, h);
          if (was.rule === DEFAULT_DENY_RULE) return;
          expect(compareRestrictiveness(after.decide(name, h).decision, was.decision)).toBeGreaterThanOrEqual(
            0,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('documents with a default never let a later document widen anything', () => {
    fc.assert(
      fc.property(documentArb, documentArb, fc.constantFrom(...NAMES), hints, (first, extra, name, h) => {
        const base = { ...first, default: first.default ?? 'deny' };
        const before = compilePolicies([source(base)])
          .get('m')!
          .decide(name, h);
        const after = compilePolicies([source(base), source(extra)])
          .get('m')!
          .decide(name, h);
        expect(compareRestrictiveness(after.decision, before.decision)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('decisions never depend on key order', () => {
    fc.assert(
      fc.property(
        documentArb,
        fc.array(fc.nat(10), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...NAMES),
        hints,
        (d, order, name, h) => {
          const reordered: PolicyDocument = {
            ...d,
            tools: shuffled(d.tools, order),
            effects: shuffled(d.effects, order),
          };
          const a = compilePolicies([source(d)]).get('m')!;
          const b = compilePolicies([source(reordered)]).get('m')!;
          expect(b.decide(name, h).decision).toBe(a.decide(name, h).decision);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('visible equals "not deny", and the memo equals direct resolution', () => {
    fc.assert(
      fc.property(
        fc.array(documentArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom(...NAMES), hints), { maxLength: 12 }),
        (docs, calls) => {
          const sources = docs.map((d) => source(d));
          const p = compilePolicies(sources).get('m')!;
          const compiled = sources.map(compileDocument);
          for (const [name, h] of [...calls, ...calls]) {
            const r = p.decide(name, h);
            expect(p.visible(name, h)).toBe(r.decision !== 'deny');
            expect(r).toEqual(resolveComposed(compiled, name, h));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('arbitrary strings as tool names never throw and are decided consistently', () => {
    const p = compilePolicies([
      source({ mode: 'm', tools: { 'a*': 'allow', '*': 'ask' }, default: 'deny' }),
    ]).get('m')!;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (name) => {
        const r = p.decide(name);
        // minimatch's `*` needs at least one character: the empty name falls to the default.
        expect(r.decision).toBe(name.startsWith('a') ? 'allow' : name === '' ? 'deny' : 'ask');
        expect(p.decide(name)).toBe(r);
      }),
      { numRuns: 500 },
    );
  });
});

describe('resolveInDocument: the prefix index (property)', () => {
  it('picks the same glob as a scan of every glob', () => {
    fc.assert(
      fc.property(documentArb, fc.constantFrom(...NAMES, 'abx', 'b/ab', 'wébx', 'zz'), (d, name) => {
        const compiled = compileDocument(source({ ...d, effects: {}, default: 'deny' }));
        if (compiled.exact.has(name)) return;
        const matching = compiled.globs.filter((g) => g.match(name));
        const top = Math.max(...matching.map((g) => g.specificity));
        const best = matching
          .filter((g) => g.specificity === top)
          .sort((a, b) => compareRestrictiveness(b.decision, a.decision) || a.order - b.order)[0];
        const r = resolveInDocument(compiled, name)!;
        expect(r.rule.selector).toBe(best ? best.selector : 'default');
        expect(r.decision).toBe(best ? best.decision : 'deny');
      }),
      { numRuns: 500 },
    );
  });
});
