/**
 * YAML mistakes explained where they are made (src/compile/language/yaml-help.ts through `parsePolicyText`): an
 * unquoted colon in a value, an over-indented line (the yaml library reports it at the value of the line above),
 * and a comma that cuts a `{ … }` value short (which the library accepts). Real texts, exact line:column, the
 * message and the `help:` with the fix; the fix applied parses clean. One run of `dsh-mode lint` shows the help.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '../../../src/compile/index.js';
import { runCli } from '../../cli/run-in-process.js';
import { makeTree } from '../../cli/run.js';

/** `line:column message` and the help of each diagnostic. */
function findings(text: string): string[][] {
  return parsePolicyText(text, 'p.yaml').diagnostics.map((d) => [
    `${d.range?.start.line}:${d.range?.start.column} ${d.severity} ${d.code}: ${d.message}`,
    d.help ?? '',
  ]);
}

const clean = (text: string) => expect(parsePolicyText(text, 'p.yaml').diagnostics).toEqual([]);

describe('an unquoted colon in a value', () => {
  it('is reported at the value, with the quoted value as the fix', () => {
    const text = 'mode: review\ndescription: Review a change: read only\ntools:\n  read: allow\n';
    expect(findings(text)).toEqual([
      [
        '2:14 error syntax: the value `Review a change: read only` holds a colon that YAML reads as the start of a mapping',
        'quote the value: `description: "Review a change: read only"`',
      ],
    ]);
    clean(text.replace('Review a change: read only', '"Review a change: read only"'));
  });

  it('in a list item, and at the end of a value', () => {
    expect(findings('- name: host\n- name: Review a change: read only\n')[0]).toEqual([
      '2:9 error syntax: the value `Review a change: read only` holds a colon that YAML reads as the start of a mapping',
      'quote the value: `name: "Review a change: read only"`',
    ]);
    expect(findings('mode: review\ndescription: Note: # later\n')[0]![1]).toBe(
      'quote the value: `description: "Note:"`',
    );
  });

  it('a colon not followed by a space is part of the value (a URL), and is no error', () => {
    clean('mode: review\ndescription: see https://example.com/x now\n');
  });
});

describe('an over-indented line', () => {
  it('is reported at its own line, not the line above, once', () => {
    const text = 'mode: review\ntools:\n  read: allow\n    write: deny\n  bash: ask\n';
    expect(findings(text)).toEqual([
      [
        '4:5 error syntax: this line is indented deeper than `read` above it, which already has a value: YAML cannot nest it there',
        'start `write: deny` at column 3, as `read` is',
      ],
    ]);
    clean(text.replace('    write', '  write'));
  });

  it('under a top-level key, inside a rule, and in a deployment list item', () => {
    expect(findings('mode: review\n  description: x\n')[0]).toEqual([
      '2:3 error syntax: this line is indented deeper than `mode` above it, which already has a value: YAML cannot nest it there',
      'start `description: x` at column 1, as `mode` is',
    ]);
    expect(findings('tools:\n  write:\n    decision: deny\n      reason: x\n')[0]![1]).toBe(
      'start `reason: x` at column 5, as `decision` is',
    );
    expect(findings('- name: host\n    config: {}\n')[0]).toEqual([
      '2:5 error syntax: this line is indented deeper than `name` above it, which already has a value: YAML cannot nest it there',
      'start `config: {}` at column 3, as `name` is',
    ]);
  });

  it('after a value with a comment and blank lines between (the library says "same column" at a blank line)', () => {
    expect(findings('mode: review\ntools:\n  read: allow # ok\n\n  # note\n    write: deny\n')).toEqual([
      [
        '6:5 error syntax: this line is indented deeper than `read` above it, which already has a value: YAML cannot nest it there',
        'start `write: deny` at column 3, as `read` is',
      ],
    ]);
  });

  it('a line indented less than its siblings keeps the library message', () => {
    const [finding] = findings('tools:\n    read: allow\n  write: deny\n');
    expect(finding![0]).toBe('3:1 error syntax: all mapping items must start at the same column');
  });
});

describe('a comma inside a `{ … }` value', () => {
  it('is reported at what the comma cut off, with the whole value quoted as the fix', () => {
    const text = 'mode: review\ntools:\n  write: { decision: deny, reason: no writes, use the plan }\n';
    expect(findings(text)).toEqual([
      [
        '3:47 error syntax: `use the plan` is read as a key with no value: in `{ … }`, a comma ends the value `no writes`',
        'quote the value: `reason: "no writes, use the plan"`',
      ],
    ]);
    clean(text.replace('no writes, use the plan', '"no writes, use the plan"'));
  });

  it('joins every piece the commas cut, and leaves a quoted value and a rule without decision alone', () => {
    expect(findings('tools:\n  write: { reason: first, then, at last, decision: deny }\n')[0]![1]).toBe(
      'quote the value: `reason: "first, then, at last"`',
    );
    clean('tools:\n  write: { reason: "a, b", decision: deny }\n  read: { decision: allow }\n');
    // `{ read: allow, write }` is a rule with no decision: the schema's to report, not a cut value.
    expect(findings('tools: { read: allow, write }\n')).toEqual([]);
  });
});

describe('text that starts with a blank line', () => {
  // Found by the long fuzz run: a bad indent under a first line that is empty sent the search for the key above
  // into an endless loop (`lastIndexOf` at a negative start reads position 0, the newline itself).
  it('is explained or refused, and the search for the key above ends', () => {
    const parsed = parsePolicyText('\n|0x1F---\n\uFEFF[!custom .infmode\u00e9', 'g.yaml');
    expect(parsed.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    const indented = parsePolicyText('\nmode: a\n    tools: x\n', 'g.yaml');
    expect(indented.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });
});

describe('dsh-mode lint', () => {
  it('prints the message at the right line and the fix on a `help:` line', async () => {
    const dir = makeTree({
      'policies/review.yaml':
        'mode: review\ndescription: Review a change: read only\ntools:\n  read: allow\n',
    });
    const run = await runCli(['lint'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '  2:14  error    the value `Review a change: read only` holds a colon that YAML reads as the start of a mapping  syntax\n' +
        '        help: quote the value: `description: "Review a change: read only"`\n',
    );
  });
});
