/**
 * The printer's screen columns (src/apps/chat/render.ts, `Printer`): a terminal soft-wraps a long line, so a mark
 * of the chat's (`✓ ✗ → ┌ │ └ ─`) that untrusted text places at the start of a screen row, after only
 * indentation, would read as the chat's own line. The printer counts columns (wide letters 2, combining marks 0,
 * tabs to the next stop) and escapes such a mark; a mark in the middle of a row stays as it is. Each output is
 * checked against a terminal model written here, independently of the printer's own counting.
 */
import { describe, expect, it } from 'vitest';
import { box, bodyLines, Printer, toolLine } from '../../../src/apps/chat/render.js';

const MARK_AT_ROW_START = /^[\s\u115f\u1160\u2800\u3164\uffa0]*[✓✗→┌│└─]/u;

/** Columns of one letter on the terminal this test models: CJK ideographs 2, combining marks 0, others 1. */
function columns(c: string): number {
  if (/\p{Mn}/u.test(c)) return 0;
  return /[\u4e00-\u9fff\u3040-\u30ff]/u.test(c) ? 2 : 1;
}

/** The screen rows a `width`-column terminal shows for `out`, each with whether a soft wrap began it. */
function screen(out: string, width: number): { row: string; soft: boolean }[] {
  const rows: { row: string; soft: boolean }[] = [];
  for (const line of out.replace(/\u001b\[[0-9;]*m/g, '').split('\n')) {
    let row = '';
    let used = 0;
    let soft = false;
    for (const c of line) {
      const w = columns(c);
      if (w > 0 && used + w > width) {
        rows.push({ row, soft });
        row = '';
        used = 0;
        soft = true;
      }
      row += c;
      used += w;
    }
    rows.push({ row, soft });
  }
  return rows;
}

/** What a printer `width` columns wide writes for `chunks` of streamed text. */
function stream(chunks: readonly string[], width = 80): string {
  let out = '';
  const printer = new Printer({ write: (text) => void (out += text) }, { width });
  for (const chunk of chunks) printer.text(chunk);
  return out;
}

/** The rows of `out` that begin with a mark after only indentation (`soft`: only rows a wrap began). */
function fakeRows(out: string, width: number, onlySoft = false): string[] {
  return screen(out, width)
    .filter(({ row, soft }) => (soft || !onlySoft) && MARK_AT_ROW_START.test(row))
    .map(({ row }) => row);
}

const FAKE = '  ✓ write src/app.js — ok: Wrote src/app.js';

describe('Printer: marks at the start of a soft-wrapped row', () => {
  it('escapes a mark that padding to the width puts at the start of a row, at any width', () => {
    for (const width of [80, 40, 33, 120]) {
      const out = stream([`${'.'.repeat(width)}${FAKE}\n`], width);
      expect(fakeRows(out, width), out).toEqual([]);
      expect(out).toContain('\\u2713 write src/app.js');
      // One column short of the width, the mark is mid-row (after a dot) and stays.
      const short = stream([`${'.'.repeat(width - 1)}✓ write\n`], width);
      expect(short).toBe(`${'.'.repeat(width - 1)}✓ write\n`);
    }
  });

  it('counts a wide letter as two columns, and moves one that does not fit to the next row', () => {
    // 40 ideographs fill 80 columns: the mark begins row 2 (as one column each it would be mid-row at 40).
    const full = stream([`${'中'.repeat(40)}✓ ok\n`]);
    expect(full).toBe(`${'中'.repeat(40)}\\u2713 ok\n`);
    expect(fakeRows(full, 80)).toEqual([]);
    // 79 columns, then an ideograph that does not fit: it starts row 2, so the mark after it is mid-row.
    const moved = stream([`${'中'.repeat(39)}a中✓ ok\n`]);
    expect(moved).toBe(`${'中'.repeat(39)}a中✓ ok\n`);
    // 78 columns and two spaces: the mark begins row 2 after nothing.
    const spaced = stream([`${'中'.repeat(39)}  ✓ ok\n`]);
    expect(fakeRows(spaced, 80), spaced).toEqual([]);
  });

  it('counts a combining mark as no column', () => {
    // 40 letters with an accent each and 40 dots: 80 columns, so the mark begins row 2.
    const out = stream([`${'e\u0301'.repeat(40)}${'.'.repeat(40)}✓ ok\n`]);
    expect(out).toContain('\\u2713 ok');
    expect(fakeRows(out, 80)).toEqual([]);
  });

  it('finds a row that starts mid-chunk, and one that starts at a chunk boundary, as streaming in pieces', () => {
    const text = `Reading the files.${'.'.repeat(62)}${FAKE} and then ${'x'.repeat(70)}→ more\n`;
    const whole = stream([text]);
    expect(fakeRows(whole, 80), whole).toEqual([]);
    // Every split into two pieces, and pieces of 7, print exactly what the whole text prints.
    for (let at = 1; at < text.length; at += 5) {
      expect(stream([text.slice(0, at), text.slice(at)])).toBe(whole);
    }
    const sevens = text.match(/[\s\S]{1,7}/g)!;
    expect(stream(sevens)).toBe(whole);
  });

  it('keeps marks in the middle of a row, and escapes one at the start of a line as before', () => {
    expect(stream(['Press → to go on; ✓ means done.\n'])).toBe('Press → to go on; ✓ means done.\n');
    expect(stream(['ok\n  ✓ fake\n'])).toBe('ok\n  \\u2713 fake\n');
  });

  it('moves over a tab as a terminal does, as spaces, so tabs cannot shift a row start', () => {
    expect(stream(['ab\tc\n'])).toBe('ab      c\n');
    // Ten tabs fill 80 columns: the mark begins row 2.
    const out = stream([`${'\t'.repeat(10)}✓ ok\n`]);
    expect(out).toBe(`${' '.repeat(80)}\\u2713 ok\n`);
    expect(fakeRows(out, 80)).toEqual([]);
  });

  it('escapes a mark a wrap puts at a row start inside a line of its own (a model-named tool)', () => {
    let out = '';
    const printer = new Printer({ write: (text) => void (out += text) }, { width: 60 });
    const name = `${'n'.repeat(56)}${FAKE}`;
    printer.own(toolLine({ callId: 'c', name, content: 'Error: unknown tool', isError: true }, {}, 'deny'));
    const rows = screen(out, 60);
    expect(rows[0]!.row.startsWith('  ✗ nnn')).toBe(true);
    expect(fakeRows(out, 60, true), out).toEqual([]);
    expect(out).toContain('\\u2713 write');
  });

  it('the thinking prefix counts toward the row', () => {
    let out = '';
    const printer = new Printer({ write: (text) => void (out += text) }, { width: 80 });
    printer.reasoning(`${'.'.repeat(70)}✓ ok`); // 10 columns of `thinking: ` and 70 dots: the mark begins row 2
    expect(out).toBe(`thinking: ${'.'.repeat(70)}\\u2713 ok`);
  });
});

describe('the plan box: its body fits the width, so no body mark begins a row', () => {
  it('every row of a box is exactly its width in columns, wide letters and tabs included', () => {
    const body = bodyLines(
      [
        `${'中'.repeat(50)}✓ write src/app.js`,
        `${'x'.repeat(75)}  ✓ write src/app.js — ok`,
        `\t${'é'.repeat(40)}\u0301${'.'.repeat(35)}→ approved`,
      ].join('\n'),
    );
    for (const width of [40, 80, 100]) {
      const drawn = box('Plan', body, width);
      for (const row of drawn.split('\n')) expect([...row].reduce((n, c) => n + columns(c), 0)).toBe(width);
      // Printed on a terminal of that width, no row is a wrapped one, and every row starts with the box's own.
      let out = '';
      new Printer({ write: (text) => void (out += text) }, { width }).card('Plan', body);
      expect(screen(out, width).filter(({ soft }) => soft)).toEqual([]);
      for (const { row } of screen(out, width).filter(({ row }) => row !== '')) expect(row).toMatch(/^[┌│└]/);
    }
  });
});
