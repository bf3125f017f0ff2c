/**
 * `colourEnabled`: the one colour rule of the command line.
 */
import { describe, expect, it } from 'vitest';
import { colourEnabled, paint } from '../../src/apps/colour.js';

describe('colourEnabled', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ TERM: 'dumb' }, true, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '' }, false, false],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: 'false' }, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '1', TERM: 'dumb' }, false, true],
  ])('env %j on a TTY %s: %s', (env, tty, expected) => {
    expect(colourEnabled(env, tty)).toBe(expected);
  });
});

describe('paint', () => {
  it('wraps text in the style only when colour is on', () => {
    expect(paint('red', 'deny', true)).toBe('\u001b[31mdeny\u001b[0m');
    expect(paint('red', 'deny', false)).toBe('deny');
  });
});
