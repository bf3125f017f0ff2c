/**
 * `formatGithub`: GitHub Actions workflow commands for `dsh-mode lint --format github`. The escaping cases
 * follow the Actions toolkit (`@actions/core` `command.ts`): data escapes `%`, CR, LF; properties also `:`, `,`.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/compile/types.js';
import { escapeData, escapeProperty, formatGithub } from '../../src/cli/formatters/github.js';

const cwd = path.resolve('/repo');

function diagnostic(overrides: Partial<Diagnostic>): Diagnostic {
  return {
    code: 'unknown-key',
    severity: 'error',
    message: 'unknown key `tool`',
    file: 'policies/review.yaml',
    path: ['tool'],
    range: { start: { line: 4, column: 3 }, end: { line: 4, column: 8 } },
    ...overrides,
  };
}

describe('escapeData', () => {
  it('escapes percent first, then carriage returns and newlines', () => {
    expect(escapeData('100%\r\nnext')).toBe('100%25%0D%0Anext');
    expect(escapeData('%0A')).toBe('%250A');
  });

  it('leaves colons and commas in messages alone', () => {
    expect(escapeData('a: b, c')).toBe('a: b, c');
  });
});

describe('escapeProperty', () => {
  it('escapes colons and commas besides what data escapes', () => {
    expect(escapeProperty('C:\\x,y%\n')).toBe('C%3A\\x%2Cy%25%0A');
  });
});

describe('formatGithub', () => {
  it('writes one command per diagnostic with file, inclusive columns and the rule as title', () => {
    const out = formatGithub({ diagnostics: [diagnostic({ help: 'did you mean `tools`?' })] }, { cwd });
    expect(out).toBe(
      '::error file=policies/review.yaml,line=4,col=3,endLine=4,endColumn=7,title=unknown-key::' +
        'unknown key `tool`%0Adid you mean `tools`?\n',
    );
  });

  it('maps warning to warning and info to notice', () => {
    const out = formatGithub(
      { diagnostics: [diagnostic({ severity: 'warning' }), diagnostic({ severity: 'info' })] },
      { cwd },
    ).split('\n');
    expect(out[0]).toMatch(/^::warning /);
    expect(out[1]).toMatch(/^::notice /);
  });

  it('escapes file names and messages that contain command syntax', () => {
    const d = diagnostic({
      file: '/repo/odd,name:1%.yaml',
      message: 'selector `a::b` 50%\nsecond line',
    });
    const line = formatGithub({ diagnostics: [d] }, { cwd });
    expect(line).toBe(
      '::error file=odd%2Cname%3A1%25.yaml,line=4,col=3,endLine=4,endColumn=7,title=unknown-key::' +
        'selector `a::b` 50%25%0Asecond line\n',
    );
    expect(line.split('\n')).toHaveLength(2);
  });

  it('keeps the end column at the start for an empty range and leaves multi-line ends as they are', () => {
    const empty = diagnostic({ range: { start: { line: 2, column: 5 }, end: { line: 2, column: 5 } } });
    const multi = diagnostic({ range: { start: { line: 2, column: 5 }, end: { line: 6, column: 1 } } });
    const out = formatGithub({ diagnostics: [empty, multi] }, { cwd });
    expect(out).toContain('line=2,col=5,endLine=2,endColumn=5,');
    expect(out).toContain('line=2,col=5,endLine=6,endColumn=1,');
  });

  it('annotates line 1 when a diagnostic has no range, and the run when it has no file', () => {
    const out = formatGithub(
      { diagnostics: [diagnostic({ range: undefined }), diagnostic({ file: null, range: undefined })] },
      { cwd },
    );
    expect(out).toBe(
      '::error file=policies/review.yaml,line=1,title=unknown-key::unknown key `tool`\n' +
        '::error title=unknown-key::unknown key `tool`\n',
    );
  });

  it('prints nothing for a clean report', () => {
    expect(formatGithub({ diagnostics: [] }, { cwd })).toBe('');
  });
});
