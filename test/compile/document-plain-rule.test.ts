/**
 * A plain `name: decision` rule, and a `prefix*: decision` glob, compile by a shortcut (no parsed selector): each
 * must give the entry the general path gives the same rule written as `{ decision }`, and match and resolve the
 * same, next to selectors that only look like them (escapes, braces, other glob characters take the general path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileDocument, resolveInDocument } from '../../src/compile/document.js';
import { parseSelector, plainBraceNames } from '../../src/compile/glob.js';
import { loadPolicyText } from '../../src/compile/load.js';
import type { CompiledRule } from '../../src/compile/types.js';

const SELECTORS = [
  'read',
  'web.fetch',
  'a-b_c',
  'x/y',
  '"quoted name"',
  '"a\\\\*b"',
  '"{p,q}_r"',
  '"mcp__gh__*"',
  '"*"',
  '"**"',
  '"w/*"',
  '"é*"',
  '"mcp__*_read*"',
  '"a?*"',
];

function compiled(shortForm: boolean) {
  const lines = ['mode: review', 'tools:'];
  SELECTORS.forEach((s, i) => {
    const decision = ['allow', 'ask', 'deny'][i % 3];
    lines.push(shortForm ? `  ${s}: ${decision}` : `  ${s}: { decision: ${decision} }`);
  });
  lines.push('default: deny');
  const { documents, diagnostics } = loadPolicyText(lines.join('\n'), 'plain.yaml');
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compileDocument(documents[0]!);
}

function fields(r: CompiledRule) {
  const {
    selector,
    pattern,
    decision,
    reason,
    base,
    arguments: args,
    specificity,
    isGlob,
    name,
    prefix,
    order,
    path,
  } = r;
  return { selector, pattern, decision, reason, base, args, specificity, isGlob, name, prefix, order, path };
}

describe('plain rules', () => {
  it('compile to the entries the general path gives', () => {
    const short = compiled(true);
    const long = compiled(false);
    expect(short.rules.map(fields)).toEqual(long.rules.map(fields));
    expect([...short.exact.keys()]).toEqual([...long.exact.keys()]);
    expect([...short.globsByPrefix.keys()]).toEqual([...long.globsByPrefix.keys()]);
    expect(short.rules.find((r) => r.selector === 'read')?.name).toBe('read');
    expect(short.rules.find((r) => r.selector === 'a\\*b')?.name).toBe('a*b');
  });

  it('match and resolve the same names', () => {
    const short = compiled(true);
    const long = compiled(false);
    const names = [
      'read',
      'reads',
      'web.fetch',
      'x/y',
      'quoted name',
      'a*b',
      'a\\*b',
      'p_r',
      'q_r',
      'mcp__gh__',
      'w/',
      'w/x',
      'w',
      'é',
      'éa',
      'mcp__x_read',
      'ab',
      'a',
      'mcp__gh__x',
      '',
    ];
    for (const name of names) {
      expect(short.rules.map((r) => r.match(name))).toEqual(long.rules.map((r) => r.match(name)));
      expect(resolveInDocument(short, name)?.decision).toBe(resolveInDocument(long, name)?.decision);
    }
    expect(resolveInDocument(short, 'read')?.decision).toBe('allow');
    expect(resolveInDocument(short, 'reads')?.decision).toBe('deny');
  });
});

describe('compiled entries', () => {
  const text = [
    'mode: review',
    'tools:',
    '  x: allow',
    '  "{x,y}": deny',
    '  bash: { commands: { "git log": allow } }',
    '  git: { decision: ask, reason: careful, commands: { "git push": deny } }',
    '  "w*": { decision: allow, reason: wide }',
    'effects:',
    '  readOnly: { decision: allow, reason: reads }',
    'default: ask',
  ].join('\n');

  it('answer kind, path, base, reason and arguments from what each rule wrote', () => {
    const { documents } = loadPolicyText(text, 'entries.yaml');
    const doc = compileDocument(documents[0]!);
    const view = (r: CompiledRule) => ({
      kind: r.kind,
      selector: r.selector,
      isGlob: r.isGlob,
      path: r.path,
      base: r.base,
      reason: r.reason,
      patterns: r.arguments?.flatMap((t) => t.patterns.map((p) => p.source)),
    });
    expect(doc.rules.map(view)).toEqual([
      { kind: 'tool', selector: 'x', isGlob: false, path: ['tools', 'x'], base: 'allow' },
      { kind: 'tool', selector: '{x,y}', isGlob: false, path: ['tools', '{x,y}'], base: 'deny' },
      { kind: 'tool', selector: '{x,y}', isGlob: false, path: ['tools', '{x,y}'], base: 'deny' },
      { kind: 'tool', selector: 'bash', isGlob: false, path: ['tools', 'bash'], patterns: ['git log'] },
      {
        kind: 'tool',
        selector: 'git',
        isGlob: false,
        path: ['tools', 'git'],
        base: 'ask',
        reason: 'careful',
        patterns: ['git push'],
      },
      { kind: 'tool', selector: 'w*', isGlob: true, path: ['tools', 'w*'], base: 'allow', reason: 'wide' },
    ]);
    expect(doc.effects.map((e) => [e.kind, e.path, e.reason, e.ref.selector, e.ref.line])).toEqual([
      ['effect', ['effects', 'readOnly'], 'reads', 'effects.readOnly', 9],
    ]);
    expect([doc.default?.kind, doc.default?.path, doc.default?.ref.selector, doc.default?.ref.line]).toEqual([
      'default',
      ['default'],
      'default',
      10,
    ]);
    expect(doc.rules.map((r) => [r.ref.selector, r.ref.line])).toEqual([
      ['x', 3],
      ['{x,y}', 4],
      ['{x,y}', 4],
      ['bash', 5],
      ['git', 6],
      ['w*', 7],
    ]);
  });

  it('keep a name written by two selectors under both, and resolve it to the most restrictive', () => {
    const { documents } = loadPolicyText(text, 'entries.yaml');
    const doc = compileDocument(documents[0]!);
    const x = doc.exact.get('x');
    expect(Array.isArray(x) ? x.map((r) => r.selector) : x).toEqual(['x', '{x,y}']);
    expect(doc.exact.get('y')).toBe(doc.rules[2]);
    expect(resolveInDocument(doc, 'x')?.decision).toBe('deny');
    expect(resolveInDocument(doc, 'x', undefined, { skip: (e) => e.path[1] === '{x,y}' })?.decision).toBe(
      'allow',
    );
    expect(resolveInDocument(doc, 'y', undefined, { skip: (e) => e.path[1] === '{x,y}' })?.decision).toBe(
      'ask',
    );
  });
});

describe('plain brace selectors', () => {
  const SELECTORS = [
    '{a,b}',
    '{read,write}_file',
    'mcp__{gh,gl}__list',
    '{a,a,b}',
    'x{p,q,p}y',
    '{a}',
    '{,a}',
    '{a,}b',
    'a,{b,c}',
    '{a,b},c',
    '{a,{b,c}}',
    '{a,b}{c,d}',
    '{a*,b}',
    '{a,b?}',
    '{a,\\\\b}',
    '{[ab],c}',
    '{a,b',
    'a,b}',
    `{${Array.from({ length: 64 }, (_, i) => `n${i}`).join(',')}}`,
    `{${Array.from({ length: 65 }, (_, i) => `n${i}`).join(',')}}`,
    '{é,\u{1F600}}_x',
  ];

  it('take the shortcut only where the general path gives exact names, and give the same names', () => {
    for (const selector of SELECTORS) {
      const parsed = parseSelector(selector);
      const names = plainBraceNames(selector);
      if (names === undefined) continue;
      expect(parsed.error, selector).toBeUndefined();
      expect(parsed.alternatives.map((a) => [a.pattern, a.name, a.prefix, a.specificity, a.isGlob])).toEqual(
        names.map((n) => [n, n, n, n.length, false]),
      );
    }
    const taken = SELECTORS.filter((s) => plainBraceNames(s) !== undefined);
    expect(taken).toEqual([
      '{a,b}',
      '{read,write}_file',
      'mcp__{gh,gl}__list',
      '{a,a,b}',
      'x{p,q,p}y',
      SELECTORS[18],
      '{é,\u{1F600}}_x',
    ]);
  });

  it('compile to the entries the general path gives (written as `{ decision }`)', () => {
    const text = (short: boolean) =>
      [
        'mode: review',
        'tools:',
        ...SELECTORS.map((s, i) => {
          const decision = ['allow', 'ask', 'deny'][i % 3];
          return `  ${JSON.stringify(s)}: ${short ? decision : `{ decision: ${decision} }`}`;
        }),
      ].join('\n');
    const [short, long] = [true, false].map((s) =>
      compileDocument(loadPolicyText(text(s), 'b.yaml').documents[0]!),
    );
    expect(short!.rules.map(fields)).toEqual(long!.rules.map(fields));
    expect([...short!.exact.keys()]).toEqual([...long!.exact.keys()]);
    expect(short!.selectorErrors).toEqual(long!.selectorErrors);
    for (const name of ['a', 'b', 'read_file', 'mcp__gl__list', 'xqy', 'n63', 'n64', 'é_x', 'c']) {
      expect(resolveInDocument(short!, name)?.decision, name).toBe(resolveInDocument(long!, name)?.decision);
    }
  });

  it('on any selector of brace, glob and other characters, the shortcut gives what the general path gives', () => {
    let taken = 0;
    // Mostly name characters, with every character glob syntax reads now and then.
    const alphabet = fc.oneof(
      { arbitrary: fc.constantFrom(...'ab_.-/ é'.split('')), weight: 8 },
      { arbitrary: fc.constantFrom(...'{},*?[]\\!()|@+'.split('')), weight: 1 },
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 14 }),
        fc.array(alphabet, { maxLength: 3 }),
        (chars, more) => {
          // Half the cases are shaped like a group (`head{x,y}tail`, any characters in the parts), so many take the
          // shortcut and many just miss it.
          const word = () => chars.splice(0, 1 + (chars.length % 3)).join('');
          const selector =
            more.length % 2 === 0
              ? chars.join('')
              : `${word()}{${[word(), word(), ...more].join(',')}}${chars.join('')}`;
          taken += plainBraceNames(selector) === undefined ? 0 : 1;
          const names = plainBraceNames(selector);
          if (names === undefined) return;
          const parsed = parseSelector(selector);
          expect(parsed.error, selector).toBeUndefined();
          expect(
            parsed.alternatives.map((a) => [a.pattern, a.name, a.prefix, a.specificity, a.isGlob]),
          ).toEqual(names.map((n) => [n, n, n, n.length, false]));
        },
      ),
      { numRuns: 20_000, seed: 20261203 },
    );
    expect(taken).toBeGreaterThan(1000);
  });
});
