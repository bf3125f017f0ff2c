/**
 * fast-check generators for policy documents: valid ones (selectors from literals, `*`, `?`, classes, escapes and
 * braces; rule objects with reasons; effects; default; override; inline tests) written as YAML or JSON, broken
 * ones (each a valid document with one kind of damage), tool names and hints.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import type { Decision, HintName, RefDocument, RuleValue } from './reference.js';

const LITERALS = ['a', 'b', 'c', '_', '.', '/'];

const simpleToken = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LITERALS) },
  { weight: 2, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constant('?') },
  { weight: 1, arbitrary: fc.constantFrom('[ab]', '[!a]', '[_.]') },
  { weight: 1, arbitrary: fc.constantFrom('\\*', '\\?', '\\[') },
);
const braceToken = fc
  .array(fc.array(simpleToken, { maxLength: 2 }), { minLength: 2, maxLength: 3 })
  .map((alts) => `{${alts.map((a) => a.join('')).join(',')}}`);

/** A selector in the reference evaluator's scope. */
export const selectorArb: fc.Arbitrary<string> = fc
  .array(fc.oneof({ weight: 8, arbitrary: simpleToken }, { weight: 1, arbitrary: braceToken }), {
    minLength: 1,
    maxLength: 4,
  })
  .map((tokens) => tokens.join(''))
  .filter((s) => s.length > 0);

/** Tool names: short strings over the selectors' alphabet (so globs match often), plus prototype names. */
export const toolNameArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .array(fc.constantFrom(...LITERALS, '*', '?', '['), { minLength: 1, maxLength: 4 })
      .map((c) => c.join('')),
  },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty') },
);

export const decisionArb = fc.constantFrom<Decision>('allow', 'ask', 'deny');
export const ruleValueArb: fc.Arbitrary<RuleValue> = fc.oneof(
  { weight: 3, arbitrary: decisionArb },
  {
    weight: 1,
    arbitrary: fc.record({ decision: decisionArb, reason: fc.constantFrom('r1', 'because', 'x y') }),
  },
);

export type HintsArg = Partial<Record<HintName, boolean>> | undefined;
export const hintsArb: fc.Arbitrary<HintsArg> = fc.option(
  fc.record(
    { readOnly: fc.boolean(), destructive: fc.boolean(), idempotent: fc.boolean(), openWorld: fc.boolean() },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

/** Builds an object with own keys even for `__proto__` (an object literal would set the prototype instead). */
function own<V>(entries: [string, V][]): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [k, v] of entries) {
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const toolsArb = fc
  .uniqueArray(fc.tuple(fc.oneof(selectorArb, toolNameArb), ruleValueArb), {
    maxLength: 6,
    selector: ([k]) => k,
  })
  .map((entries) => own(entries));

const testArb = fc.record(
  {
    tool: toolNameArb,
    expect: decisionArb,
    annotations: fc.record(
      {
        readOnly: fc.boolean(),
        destructive: fc.boolean(),
        idempotent: fc.boolean(),
        openWorld: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['tool', 'expect'] },
);

/** A valid document as data (the schema accepts it). */
export type GeneratedDocument = RefDocument & {
  section?: string;
  description?: string;
  tests?: { tool: string; expect: Decision; annotations?: Partial<Record<HintName, boolean>> }[];
};

export const documentArb: fc.Arbitrary<GeneratedDocument> = fc.record(
  {
    mode: fc.constantFrom('m', 'n'),
    description: fc.constantFrom('a mode', 'another'),
    section: fc.string({ maxLength: 20 }),
    tools: toolsArb,
    effects: fc.record(
      {
        readOnly: ruleValueArb,
        destructive: ruleValueArb,
        idempotent: ruleValueArb,
        openWorld: ruleValueArb,
      },
      { requiredKeys: [] },
    ),
    default: decisionArb,
    override: fc.constantFrom(true, false),
    tests: fc.array(testArb, { maxLength: 3 }),
  },
  { requiredKeys: ['mode'] },
);

/** Writes a document as YAML or JSON text. */
export function serialise(doc: unknown, format: 'yaml' | 'json'): string {
  return format === 'json' ? JSON.stringify(doc, null, 1) : stringify(doc);
}

/** One kind of damage to a valid document (a name for the report, and the change); each must be refused. */
export interface Damage {
  kind: string;
  apply(doc: Record<string, unknown>): unknown;
}

export const damageArb: fc.Arbitrary<Damage> = fc.constantFrom<Damage>(
  { kind: 'unknown key', apply: (d) => ({ ...d, defualt: 'deny' }) },
  { kind: 'typo in effects', apply: (d) => ({ ...d, effects: { readonly: 'allow' } }) },
  { kind: 'bad decision', apply: (d) => ({ ...d, default: 'allw' }) },
  { kind: 'reserved mode', apply: (d) => ({ ...d, mode: 'default' }) },
  { kind: 'mode not a string', apply: (d) => ({ ...d, mode: 42 }) },
  { kind: 'mode with capitals', apply: (d) => ({ ...d, mode: 'Plan' }) },
  { kind: 'missing mode', apply: ({ mode: _mode, ...rest }) => rest },
  { kind: 'tools is a list', apply: (d) => ({ ...d, tools: ['read'] }) },
  { kind: 'rule object without decision', apply: (d) => ({ ...d, tools: { a: { reason: 'x' } } }) },
  {
    kind: 'rule object with extra key',
    apply: (d) => ({ ...d, tools: { a: { decision: 'deny', why: 'x' } } }),
  },
  { kind: 'empty selector', apply: (d) => ({ ...d, tools: { '': 'deny' } }) },
  { kind: 'override not boolean', apply: (d) => ({ ...d, override: 'yes' }) },
  { kind: 'test without tool', apply: (d) => ({ ...d, tests: [{ expect: 'deny' }] }) },
  { kind: 'document is a list', apply: (d) => [d] },
  { kind: 'document is a scalar', apply: () => 'mode: plan' },
  { kind: 'null document', apply: () => null },
);

/** Selectors that are schema-valid but semantically broken: lint reports them, compiling must not throw. */
export const brokenSelectorArb = fc.constantFrom(
  '[a',
  'a{b',
  '}',
  'a\\',
  '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}',
  '[[:alpha:]]*',
  '**/*',
  '!a',
  '#a',
  '+(a|b)',
  'x'.repeat(5000),
  '{'.repeat(200),
  '[]',
  '[!]',
  '\\',
);
