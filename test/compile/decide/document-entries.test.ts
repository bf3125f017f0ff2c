/**
 * What a compiled document's entries answer (kind, path, base, reason, argument tables, located refs), and how a
 * name written by two selectors resolves.
 */
import { describe, expect, it } from 'vitest';
import { compileDocument, resolveInDocument } from '../../../src/compile/decide/document.js';
import { loadPolicyText } from '../../../src/compile/language/load.js';
import type { CompiledRule } from '../../../src/compile/types.js';

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
    expect(doc.exact.get('x')?.map((r) => r.selector)).toEqual(['x', '{x,y}']);
    expect(doc.exact.get('y')).toEqual([doc.rules[2]]);
    expect(resolveInDocument(doc, 'x')?.decision).toBe('deny');
    expect(resolveInDocument(doc, 'x', undefined, { skip: (e) => e.path[1] === '{x,y}' })?.decision).toBe(
      'allow',
    );
    expect(resolveInDocument(doc, 'y', undefined, { skip: (e) => e.path[1] === '{x,y}' })?.decision).toBe(
      'ask',
    );
  });
});
