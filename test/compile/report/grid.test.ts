// The grid's questions: which rows, and which hint probes are worth a row.
import { describe, expect, it } from 'vitest';
import {
  collectToolRows,
  HINT_COMBINATIONS,
  hintLabel,
  hintProbes,
  isReadOnlyProbe,
  type ToolRow,
} from '../../../src/compile/report/grid.js';
import { loadPolicyText } from '../../../src/compile/language/load.js';

describe('HINT_COMBINATIONS', () => {
  it('holds the 16 combinations of the four hints, each once, every hint explicit', () => {
    expect(HINT_COMBINATIONS).toHaveLength(16);
    const keys = new Set(HINT_COMBINATIONS.map((h) => JSON.stringify(h)));
    expect(keys.size).toBe(16);
    for (const h of HINT_COMBINATIONS)
      expect(Object.keys(h).sort()).toEqual(['destructive', 'idempotent', 'openWorld', 'readOnly']);
    expect(hintLabel(HINT_COMBINATIONS[0]!)).toBe('[none]');
    expect(hintLabel(HINT_COMBINATIONS[5]!)).toBe('[readOnly, idempotent]');
  });
});

describe('collectToolRows', () => {
  it('orders catalog tools, rule names, glob samples, then the two probes, each name once', () => {
    const { documents } = loadPolicyText(
      'mode: x\ntools:\n  b: allow\n  a: deny\n  "a*": ask\n  "z?": ask\n  c: allow\n',
      'x.yaml',
    );
    const rows = collectToolRows([documents], [{ name: 'c' }], 'catalog');
    expect(rows.map((r) => [r.label, r.source])).toEqual([
      ['c', 'catalog'],
      ['a', 'rule'],
      ['b', 'rule'],
      // `a` matches `a*` but does not stand for it: `a` has a rule of its own, `ax` is decided by `a*`.
      ['a*', 'glob'],
      ['z?', 'glob'],
      ['(other tool)', 'probe'],
      ['(other read-only tool)', 'probe'],
    ]);
    expect(rows[5]!.hints).toBeUndefined();
    expect(rows[6]!.hints).toEqual({ readOnly: true });
  });
  it('marks the rows that stand for a selector, and (other tool), for hint probes', () => {
    const { documents } = loadPolicyText(
      'mode: x\ntools:\n  a: deny\n  "mcp__*": ask\n  "web_*": allow\n',
      'x.yaml',
    );
    const rows = collectToolRows(
      [documents],
      [{ name: 'a' }, { name: 'web_x', hints: {} }, { name: 'c' }],
      'catalog',
    );
    const probed = Object.fromEntries(rows.map((r) => [r.label, r.probeHints === true]));
    expect(probed).toEqual({
      a: true, // a catalog tool a rule names
      web_x: true, // a catalog tool that stands for `web_*`
      c: false, // a catalog tool no selector mentions: asked with its own hints only
      'mcp__*': true,
      '(other tool)': true,
      '(other read-only tool)': false,
    });
    expect(rows.filter(isReadOnlyProbe).map((r) => r.label)).toEqual(['(other read-only tool)']);
  });

  it('samples a glob with a name that a more specific glob does not also match', () => {
    const { documents } = loadPolicyText(
      'mode: x\ntools:\n  "mcp__*": allow\n  "mcp__x*": deny\n  "mcp__q*": deny\n',
      'x.yaml',
    );
    const rows = collectToolRows([documents], [], 'catalog');
    expect(rows.filter((r) => r.source === 'glob').map((r) => [r.label, r.name])).toEqual([
      ['mcp__*', 'mcp__z'],
      ['mcp__q*', 'mcp__qx'],
      ['mcp__x*', 'mcp__x'],
    ]);
  });

  it('keeps a row for a POSIX-class glob, decided for a name it matches', () => {
    const { documents } = loadPolicyText('mode: x\ntools:\n  "[[:alpha:]]_*": deny\n', 'x.yaml');
    const row = collectToolRows([documents], [], 'catalog').find((r) => r.source === 'glob');
    expect(row).toMatchObject({ label: '[[:alpha:]]_*', name: 'x_x' });
  });
});

describe('hintProbes', () => {
  const row: ToolRow = { name: 't', label: 't', source: 'rule', probeHints: true };
  const judge = (r: ToolRow) => (r.hints?.readOnly ? 'allow' : r.hints?.idempotent ? 'ask' : 'deny');

  it('keeps one probe per new answer, with the first combination that gives it', () => {
    const probes = hintProbes(
      row,
      judge,
      (a) => a !== 'deny',
      (a) => a,
    );
    expect(probes.map((p) => [p.row.label, p.answer])).toEqual([
      ['t [readOnly]', 'allow'],
      ['t [idempotent]', 'ask'],
    ]);
    expect(probes[0]!.row.hints).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: false,
      openWorld: false,
    });
  });

  it('skips answers already shown elsewhere, and rows not marked for probes', () => {
    expect(
      hintProbes(
        row,
        judge,
        (a) => a !== 'deny',
        (a) => a,
        ['allow'],
      ).map((p) => p.answer),
    ).toEqual(['ask']);
    expect(
      hintProbes(
        { ...row, probeHints: false },
        judge,
        () => true,
        (a) => a,
      ),
    ).toEqual([]);
  });
});
