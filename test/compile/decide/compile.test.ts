// compilePolicies and resolveInDocument: the policy language, docs/reference/policy-language.md, clause by clause, on inline YAML documents.
import { describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicyText } from '../../../src/compile/api.js';
import { DEFAULT_DENY_RULE, effectiveHints } from '../../../src/compile/decide/document.js';
import { compileDocument, resolveInDocument } from '../../../src/compile/decide/document.js';
import { MEMO_LIMIT } from '../../../src/compile/decide/compile.js';
import { doc, policy } from '../helpers.js';

describe('policy language: resolution: exact name → most specific glob → effects → default', () => {
  const p = policy(
    'm',
    [
      'mode: m',
      'tools:',
      '  "*": deny',
      '  "web_*": ask',
      '  "web_f*": allow',
      '  web_fetch: deny',
      'effects:',
      '  readOnly: allow',
      'default: ask',
    ].join('\n'),
  );

  it('prefers the exact name over every glob', () => {
    expect(p.decide('web_fetch')).toEqual({
      decision: 'deny',
      rule: { selector: 'web_fetch', file: 'doc0.yaml', line: 6, column: 3 },
    });
  });

  it('prefers the most specific glob, whatever the key order', () => {
    expect(p.decide('web_find').rule.selector).toBe('web_f*');
    expect(p.decide('web_search').rule.selector).toBe('web_*');
    expect(p.decide('other').rule.selector).toBe('*');
  });

  it('lets any matching rule win over effects and default', () => {
    expect(p.decide('other', { readOnly: true }).decision).toBe('deny');
  });

  it('falls to effects, then to the default', () => {
    const q = policy('m', 'mode: m\ntools: { write: deny }\neffects: { readOnly: allow }\ndefault: ask\n');
    expect(q.decide('lsp', { readOnly: true })).toEqual({
      decision: 'allow',
      rule: { selector: 'effects.readOnly', file: 'doc0.yaml', line: 3, column: 12 },
    });
    expect(q.decide('lsp')).toEqual({
      decision: 'ask',
      rule: { selector: 'default', file: 'doc0.yaml', line: 4, column: 1 },
    });
  });

  it("reports the rule's own reason", () => {
    const q = policy('m', 'mode: m\ntools:\n  "mcp__*": { decision: deny, reason: No MCP here. }\n');
    expect(q.decide('mcp__gh__x')).toMatchObject({ decision: 'deny', reason: 'No MCP here.' });
    expect(q.decide('mcp__gh__x').rule.selector).toBe('mcp__*');
  });
});

describe('policy language: ties', () => {
  it('resolves disagreeing equal-specificity globs to the most restrictive', () => {
    const p = policy('m', 'mode: m\ntools:\n  "a*": allow\n  "*b": deny\n  "*c": ask\n');
    expect(p.decide('ab').decision).toBe('deny');
    expect(p.decide('ac').decision).toBe('ask');
    const q = policy('m', 'mode: m\ntools:\n  "*b": deny\n  "a*": allow\n');
    expect(q.decide('ab').decision).toBe('deny');
  });

  it('reports the first in document order among agreeing equal globs', () => {
    const p = policy(
      'm',
      'mode: m\ntools:\n  "a*": { decision: deny, reason: first }\n  "*b": { decision: deny, reason: second }\n',
    );
    expect(p.decide('ab')).toMatchObject({ reason: 'first', rule: { selector: 'a*' } });
  });

  it('treats brace alternatives as separate selectors with their own specificity', () => {
    const p = policy('m', 'mode: m\ntools:\n  "{web_*,w*}": deny\n  "web_f*": allow\n  "{read,list}": ask\n');
    expect(p.decide('web_fetch').decision).toBe('allow');
    expect(p.decide('wx').decision).toBe('deny');
    expect(p.decide('list')).toMatchObject({ decision: 'ask', rule: { selector: '{read,list}', line: 5 } });
  });

  it('resolves an exact name given twice (plain and braced) to the most restrictive', () => {
    const p = policy('m', 'mode: m\ntools:\n  read: allow\n  "{read,x}": ask\n');
    expect(p.decide('read').decision).toBe('ask');
  });

  it('takes the most restrictive among the hints that are true', () => {
    const p = policy(
      'm',
      'mode: m\neffects:\n  readOnly: allow\n  openWorld: ask\n  destructive: deny\n  idempotent: allow\n',
    );
    expect(p.decide('t', { readOnly: true }).decision).toBe('ask');
    expect(p.decide('t', { readOnly: true, openWorld: false })).toMatchObject({
      decision: 'allow',
      rule: { selector: 'effects.readOnly' },
    });
    expect(p.decide('t').decision).toBe('deny');
    expect(
      p.decide('t', { readOnly: false, destructive: false, openWorld: false, idempotent: true }).decision,
    ).toBe('allow');
  });
});

describe('effectiveHints', () => {
  it('applies MCP defaults and ignores non-booleans', () => {
    expect(effectiveHints()).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(effectiveHints({ readOnly: true })).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: false,
      openWorld: true,
    });
    expect(effectiveHints({ readOnly: true, destructive: true })).toMatchObject({ destructive: true });
    expect(effectiveHints({ readOnly: 'yes' as unknown as boolean })).toMatchObject({
      readOnly: false,
      destructive: true,
    });
  });
});

describe('policy language: composition is a ceiling', () => {
  const base = 'mode: m\nsection: base\ntools:\n  read: allow\n  write: ask\ndefault: deny\n';

  it('takes the most restrictive decision across documents', () => {
    const p = policy('m', base, 'mode: m\ntools:\n  read: deny\n  write: allow\n');
    expect(p.decide('read')).toMatchObject({ decision: 'deny', rule: { file: 'doc1.yaml' } });
    expect(p.decide('write')).toMatchObject({ decision: 'ask', rule: { file: 'doc0.yaml' } });
  });

  it('reports the first document in load order when documents tie', () => {
    const p = policy('m', base, 'mode: m\ntools:\n  read: allow\n');
    expect(p.decide('read').rule.file).toBe('doc0.yaml');
  });

  it('lets a document without default abstain on what it does not match', () => {
    const p = policy('m', base, 'mode: m\ntools:\n  web_fetch: deny\n');
    expect(p.decide('read').decision).toBe('allow');
    expect(p.decide('web_fetch').decision).toBe('deny');
  });

  it('denies with the built-in default rule when no document decides', () => {
    const p = policy('m', 'mode: m\ntools:\n  read: allow\n');
    expect(p.decide('other')).toEqual({ decision: 'deny', rule: DEFAULT_DENY_RULE });
    expect(DEFAULT_DENY_RULE).toEqual({ selector: 'default', file: null, line: null, column: null });
  });

  it('joins sections in load order and keeps the first description', () => {
    const p = policy(
      'm',
      base,
      'mode: m\ndescription: later\nsection: |\n  more\n',
      'mode: m\ndescription: last\n',
    );
    expect(p.section).toBe('base\n\nmore');
    expect(p.description).toBe('later');
    expect(p.documents).toHaveLength(3);
  });

  it('keeps modes apart', () => {
    const set = compilePolicies([doc(base), doc('mode: other\ndefault: allow\n')]);
    expect([...set.modes.keys()]).toEqual(['m', 'other']);
    expect(set.get('m')!.decide('x').decision).toBe('deny');
    expect(set.get('other')!.decide('x').decision).toBe('allow');
    expect(set.get('nope')).toBeUndefined();
  });
});

describe('policy language: override', () => {
  it('discards every earlier document of its mode, and nothing of other modes', () => {
    const set = compilePolicies([
      doc('mode: m\nsection: a\ndescription: A\ntools: { read: deny }\n'),
      doc('mode: n\ndefault: deny\n'),
      doc('mode: m\nsection: b\noverride: true\ntools: { read: allow }\n', 'o.yaml'),
      doc('mode: m\nsection: c\ntools: { write: ask }\n'),
    ]);
    const m = set.get('m')!;
    expect(m.decide('read')).toMatchObject({ decision: 'allow', rule: { file: 'o.yaml' } });
    expect(m.decide('write').decision).toBe('ask');
    expect(m.section).toBe('b\n\nc');
    expect(m.description).toBeUndefined();
    expect(set.get('n')!.decide('x').decision).toBe('deny');
  });
});

describe('CompiledPolicy.decide and visible', () => {
  it('memoises: the same name and hints give the same frozen object', () => {
    const p = policy('m', 'mode: m\ntools: { "a*": allow }\n');
    const first = p.decide('ab');
    expect(p.decide('ab')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(p.decide('ab', {})).toBe(first);
    expect(p.decide('ab', { destructive: true, openWorld: true })).toBe(first);
    expect(p.decide('ab', { readOnly: true })).not.toBe(first);
  });

  it('treats `__proto__`, `constructor`, long and non-ASCII names like any other', () => {
    const p = policy(
      'm',
      'mode: m\ntools:\n  __proto__: allow\n  "constr*": ask\n  "读*": allow\ndefault: deny\n',
    );
    expect(p.decide('__proto__').decision).toBe('allow');
    expect(p.decide('constructor').decision).toBe('ask');
    expect(p.decide('toString').decision).toBe('deny');
    expect(p.decide('hasOwnProperty').decision).toBe('deny');
    expect(p.decide('读文件').decision).toBe('allow');
    expect(p.decide('x'.repeat(10_000)).decision).toBe('deny');
    expect(p.decide('🙂').decision).toBe('deny');
  });

  it('keeps deciding correctly after the memo table is dropped at its limit', () => {
    const p = policy('m', 'mode: m\ntools: { "a*": allow }\ndefault: ask\n');
    const first = p.decide('a0');
    for (let i = 0; i <= MEMO_LIMIT; i++) p.decide(`b${i}`);
    expect(p.decide('a0')).toEqual(first);
    expect(p.decide('b1').decision).toBe('ask');
  });

  it('gives visible = not deny, for every hint combination', () => {
    const p = policy('m', 'mode: m\ntools: { a: allow, b: ask, c: deny }\neffects: { readOnly: allow }\n');
    for (const name of ['a', 'b', 'c', 'd']) {
      for (const hints of [undefined, { readOnly: true }, { readOnly: false }]) {
        expect(p.visible(name, hints)).toBe(p.decide(name, hints).decision !== 'deny');
      }
    }
  });
});

describe('compilePolicies on a changed document', () => {
  // A loaded document is a plain object its caller may change: compiling it again must read what it says now.
  it('answers deny after a loaded `write: allow` is changed to `deny` and the documents are compiled again', () => {
    const { documents, diagnostics } = loadPolicyText('mode: m\ntools:\n  write: allow\n', 'm.yaml');
    expect(diagnostics).toEqual([]);
    expect(compilePolicies(documents).get('m')!.decide('write').decision).toBe('allow');
    documents[0]!.document.tools!['write'] = 'deny';
    expect(compilePolicies(documents).get('m')!.decide('write').decision).toBe('deny');
    expect(compilePolicies(documents).get('m')!.decideCall!({ name: 'write' }).decision).toBe('deny');
  });

  it('reads a changed argument rule too', () => {
    const { documents } = loadPolicyText(
      'mode: m\ntools:\n  bash: { decision: deny, commands: { "ls **": allow } }\n',
      'm.yaml',
    );
    const call = { name: 'bash', arguments: { command: 'ls -la' } };
    expect(compilePolicies(documents).get('m')!.decideCall!(call).decision).toBe('allow');
    documents[0]!.document.tools!['bash'] = { decision: 'deny', commands: { 'ls **': 'deny' } };
    expect(compilePolicies(documents).get('m')!.decideCall!(call).decision).toBe('deny');
  });
});

describe('resolveInDocument', () => {
  const d = compileDocument(
    doc('mode: m\ntools:\n  read: allow\n  "r*": ask\neffects: { readOnly: deny }\ndefault: allow\n'),
  );

  it('abstains when nothing matches and there is no default', () => {
    expect(resolveInDocument(compileDocument(doc('mode: m\ntools: { a: allow }\n')), 'b')).toBeUndefined();
  });

  it('answers "what without that rule" through skip', () => {
    expect(resolveInDocument(d, 'read')!.rule.selector).toBe('read');
    expect(
      resolveInDocument(d, 'read', undefined, { skip: (e) => e.kind === 'tool' && e.selector === 'read' })!
        .rule.selector,
    ).toBe('r*');
    expect(
      resolveInDocument(d, 'x', { readOnly: true }, { skip: (e) => e.kind === 'effect' })!.rule.selector,
    ).toBe('default');
    expect(resolveInDocument(d, 'x', undefined, { skip: (e) => e.kind === 'default' })).toBeUndefined();
  });

  it('records invalid selectors and keeps compiling', () => {
    const bad = compileDocument(
      doc('mode: m\ntools:\n  "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}": deny\n  "[x": allow\n'),
    );
    expect(bad.selectorErrors.map((e) => [e.selector.slice(0, 5), e.error])).toEqual([
      ['{a,b}', 'braces expand to more than 64 alternatives'],
      ['[x', 'unclosed `[` at column 1'],
    ]);
    expect(resolveInDocument(bad, '[x')!.decision).toBe('allow');
  });

  it('reports inline documents with a null file and their positions', () => {
    const p = compilePolicies([doc('mode: m\ndefault: ask\n', null)]).get('m')!;
    expect(p.decide('x').rule).toEqual({ selector: 'default', file: null, line: 2, column: 1 });
  });
});
