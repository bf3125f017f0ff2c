// sortDiagnostics and hasErrors: the order reported output uses.
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/compile/api.js';
import { hasErrors, sortDiagnostics } from '../../../src/compile/language/diagnostics.js';

const d = (file: string | null, line: number | undefined, code: string, column = 1): Diagnostic => ({
  code,
  severity: 'warning',
  message: code,
  file,
  path: [],
  ...(line === undefined ? {} : { range: { start: { line, column }, end: { line, column: column + 1 } } }),
});

describe('sortDiagnostics', () => {
  it('orders by file, line, column and code, and drops exact duplicates', () => {
    const input = [
      d('b', 1, 'x'),
      d('a', 2, 'y'),
      d('a', 2, 'x'),
      d('a', 2, 'x'),
      d('a', 1, 'z', 5),
      d('a', 1, 'z', 2),
      d(null, undefined, 'io'),
    ];
    expect(
      sortDiagnostics(input).map(
        (x) => `${x.file}:${x.range?.start.line}:${x.range?.start.column}:${x.code}`,
      ),
    ).toEqual(['null:undefined:undefined:io', 'a:1:2:z', 'a:1:5:z', 'a:2:1:x', 'a:2:1:y', 'b:1:1:x']);
  });

  it('hasErrors is true only with an error', () => {
    expect(hasErrors([d('a', 1, 'x')])).toBe(false);
    expect(hasErrors([{ ...d('a', 1, 'x'), severity: 'error' }])).toBe(true);
  });
});
