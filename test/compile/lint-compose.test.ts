// `ModeCompositions` (lint's indexed compositions) against the compiler, with fast-check: for every prefix of a
// generated mode, every name and hint set, the indexed answer equals `composePolicy` over the same documents
// (decision, reason and rule), and "without one entry" equals the straightforward ceiling with that entry skipped;
// the decision-only probes (`decisionBefore`, `DocumentProbe`) answer the same decisions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DENY_RULE,
  type CompiledDocument,
  type DecideResult,
  type Decision,
  type Hints,
  type JsonPath,
  type PolicyDocument,
  type SourceDocument,
} from '../../src/compile/index.js';
import { composePolicy } from '../../src/compile/compile.js';
import { compareRestrictiveness, compileDocument, resolveInDocument } from '../../src/compile/document.js';
import { policyValidator } from '../../src/compile/validate.js';
import { ModeCompositions } from '../../src/compile/lint-compose.js';
import { DocumentProbe } from '../../src/compile/lint-probe.js';

const NAMES = ['a', 'b', 'ab', 'ba', 'abc', 'x', '', '__proto__', 'wébfetch', 'a/b', 'a.b', 'zz'];
const SELECTORS = [
  'a',
  'b',
  'ab',
  'x',
  '__proto__',
  'a*',
  '*b',
  '*',
  'a?',
  '{a,b}',
  '{ab,x*}',
  '[ab]*',
  'a/*',
];
const HINTS: (Hints | undefined)[] = [
  undefined,
  { readOnly: true },
  { destructive: false },
  { readOnly: true, idempotent: true, openWorld: false },
  { idempotent: true },
];
const decision = fc.constantFrom<Decision>('allow', 'deny', 'ask');
const ruleValue = fc.oneof(decision, fc.record({ decision, reason: fc.constantFrom('r1', 'r2') }));
const documentArb: fc.Arbitrary<PolicyDocument> = fc.record(
  {
    mode: fc.constant('m'),
    override: fc.constantFrom(true, false, false, false, false),
    tools: fc.dictionary(fc.constantFrom(...SELECTORS), ruleValue, { maxKeys: 5 }),
    effects: fc.record(
      { readOnly: ruleValue, destructive: ruleValue, idempotent: ruleValue, openWorld: ruleValue },
      { requiredKeys: [] },
    ),
    default: decision,
  },
  { requiredKeys: ['mode'] },
);

function compiled(documents: readonly PolicyDocument[]): CompiledDocument[] {
  return documents.map((document, i) => {
    expect(policyValidator()(document)).toBe(true);
    const source: SourceDocument = { file: `gen${i}.yaml`, document, locate: () => undefined };
    return compileDocument(source);
  });
}

/** Where the composition up to `end` starts: the last override among the documents before `end`. */
function startOf(docs: readonly CompiledDocument[], end: number): number {
  let from = 0;
  for (let i = 0; i < end; i++) if (docs[i]!.override) from = i;
  return from;
}

/** The straightforward ceiling with one entry of the last document skipped (lint's algorithm before indexing). */
function ceilingWithout(
  docs: readonly CompiledDocument[],
  name: string,
  hints: Hints | undefined,
  without: JsonPath,
): DecideResult | undefined {
  const own = docs.at(-1);
  let best: DecideResult | undefined;
  for (const doc of docs) {
    const skip = (e: { path: JsonPath }) =>
      doc === own && e.path.length === without.length && e.path.every((s, i) => s === without[i]);
    const r = resolveInDocument(doc, name, hints, { skip });
    if (r && (!best || compareRestrictiveness(r.decision, best.decision) > 0)) best = r;
  }
  return best;
}

/** Every key a document can lose: its selectors and its effects. */
function entriesOf(doc: CompiledDocument): JsonPath[] {
  return [...doc.rules.map((r) => r.path), ...doc.effects.map((e) => e.path)];
}

describe('ModeCompositions', () => {
  it('answers what the compiler answers for every prefix, name and hint set', () => {
    fc.assert(
      fc.property(fc.array(documentArb, { minLength: 1, maxLength: 8 }), (documents) => {
        const docs = compiled(documents);
        const modes = new ModeCompositions('m', docs);
        for (let end = 1; end <= docs.length; end++) {
          const reference = composePolicy('m', docs.slice(startOf(docs, end), end));
          const indexed = modes.policy(end);
          for (const name of NAMES) {
            for (const hints of HINTS)
              expect(indexed.decide(name, hints)).toEqual(reference.decide(name, hints));
          }
          expect(indexed.section).toBe(reference.section);
          expect(indexed.description).toBe(reference.description);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers the ceiling with one entry of the last document skipped, and the documents before it', () => {
    fc.assert(
      fc.property(fc.array(documentArb, { minLength: 1, maxLength: 8 }), (documents) => {
        const docs = compiled(documents);
        const modes = new ModeCompositions('m', docs);
        for (let position = 0; position < docs.length; position++) {
          const probe = new DocumentProbe(docs[position]!);
          const prefix = docs.slice(startOf(docs, position + 1), position + 1);
          const before = prefix.slice(0, -1);
          for (const without of [...entriesOf(docs[position]!), ['default'], ['tools', 'nope']]) {
            const skip = (e: { path: JsonPath }) =>
              e.path.length === without.length && e.path.every((s, i) => s === without[i]);
            for (const name of NAMES) {
              for (const hints of HINTS) {
                expect(modes.resolve(position + 1, name, hints, { position, skip })).toEqual(
                  ceilingWithout(prefix, name, hints, without),
                );
                const earlier =
                  before.length === 0 ? undefined : composePolicy('m', before).decide(name, hints);
                const got = modes.resolveBefore(position, name, hints);
                expect(got ?? { decision: 'deny', rule: DEFAULT_DENY_RULE }).toEqual(
                  earlier ?? { decision: 'deny', rule: DEFAULT_DENY_RULE },
                );
                if (before.length === 0) expect(got).toBeUndefined();
                // The decision-only answers (lint's probes), through their memos: the same decisions.
                expect(modes.decisionBefore(position, name, hints)).toBe(got?.decision);
                expect(probe.decision(name, hints, without)).toBe(
                  resolveInDocument(docs[position]!, name, hints, { skip })?.decision,
                );
                expect(probe.decision(name, hints)).toBe(
                  resolveInDocument(docs[position]!, name, hints)?.decision,
                );
              }
            }
          }
        }
      }),
      { numRuns: 50 },
    );
    // Thousands of compositions and probes: room for a loaded machine (a harness limit, not a speed check).
  }, 120_000);
});
