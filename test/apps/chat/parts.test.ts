/**
 * The chat's parts (src/apps/chat/): the answer grammar of approval questions, the tool line, and the piped
 * terminal's one queue of lines over real streams. The whole chat is driven as a process in chat.test.ts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../../src/apps/chat/answerer.js';
import { Printer, toolLine } from '../../../src/apps/chat/render.js';
import { openTerminal } from '../../../src/apps/chat/terminal.js';

describe('parseAnswer', () => {
  it('approves on y/yes, rejects on n/no/empty, sends other text as feedback, cancels at end of input', () => {
    expect(parseAnswer('y')).toEqual({ outcome: 'allowed-once' });
    expect(parseAnswer(' YES ')).toEqual({ outcome: 'allowed-once' });
    expect(parseAnswer('n')).toEqual({ outcome: 'rejected' });
    expect(parseAnswer('No')).toEqual({ outcome: 'rejected' });
    expect(parseAnswer('  ')).toEqual({ outcome: 'rejected' });
    expect(parseAnswer('  add tests  ')).toEqual({ outcome: 'rejected', feedback: 'add tests' });
    expect(parseAnswer(null)).toEqual({ outcome: 'cancelled' });
  });
});

describe('toolLine', () => {
  const result = (isError: boolean, content: string) => ({ callId: 'c', name: 'write', content, isError });
  it('marks gate denials, unapproved calls and plain errors differently', () => {
    expect(toolLine(result(true, 'Error: not in plan mode'), { path: 'a' }, 'deny')).toBe(
      '  ✗ write a — DENIED: not in plan mode',
    );
    expect(toolLine(result(true, 'Error: rejected'), { path: 'a' }, 'ask')).toBe(
      '  ✗ write a — NOT APPROVED: rejected',
    );
    expect(toolLine(result(true, 'Error: disk full'), { path: 'a' }, 'allow')).toBe(
      '  ✗ write a — error: disk full',
    );
    expect(toolLine(result(false, 'one\ntwo'), { path: 'a' }, 'allow')).toBe('  ✓ write a — ok (2 lines)');
  });

  it('says how an asked call was answered in words for the user, not the result written for the model', () => {
    const plan = (isError: boolean, content: string) => ({
      callId: 'c',
      name: 'exit_plan_mode',
      content,
      isError,
    });
    const decided = (outcome: 'allowed-once' | 'rejected' | 'cancelled', feedback?: string) => ({
      callId: 'c',
      outcome,
      ...(feedback ? { feedback } : {}),
    });
    const approved = toolLine(
      plan(false, 'The user approved the plan. The session leaves…'),
      {},
      'ask',
      decided('allowed-once'),
    );
    expect(approved).toBe('  ✓ exit_plan_mode — plan approved: the full toolset returns on the next step');
    expect(
      toolLine(plan(true, 'Error: the user rejected the plan: x'), {}, 'ask', decided('rejected', 'x')),
    ).toBe(
      '  ✗ exit_plan_mode — NOT APPROVED: you answered with feedback, sent to the model; still planning',
    );
    expect(
      toolLine(result(true, 'Error: the user rejected'), { path: 'a' }, 'ask', decided('rejected')),
    ).toBe('  ✗ write a — NOT APPROVED: you rejected it');
    expect(toolLine(result(true, 'Error: cancelled'), { path: 'a' }, 'ask', decided('cancelled'))).toBe(
      '  ✗ write a — NOT APPROVED: the question was cancelled',
    );
    expect(toolLine(result(false, 'Wrote 2 bytes to a'), { path: 'a' }, 'ask', decided('allowed-once'))).toBe(
      '  ✓ write a — approved, ok: Wrote 2 bytes to a',
    );
  });

  it("shows a denial's reason for the user when the verdict has one, else the reason the model got", () => {
    const model =
      'Error: tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready';
    const denied = {
      kind: 'deny' as const,
      reason: model.slice('Error: '.length),
      userReason: 'tool "write" is not available in plan mode until you approve a plan',
    };
    expect(toolLine(result(true, model), { path: 'a' }, denied)).toBe(
      '  ✗ write a — DENIED: tool "write" is not available in plan mode until you approve a plan',
    );
    expect(
      toolLine(
        result(true, 'Error: reads are off'),
        { path: 'a' },
        { kind: 'deny', reason: 'reads are off' },
      ),
    ).toBe('  ✗ write a — DENIED: reads are off');
    // Untrusted text either way: a user reason is kept to one line too, so it cannot start a fake one.
    const hostile = { kind: 'deny' as const, reason: 'x', userReason: 'line\n  ✓ fake' };
    expect(toolLine(result(true, 'Error: x'), { path: 'a' }, hostile)).toBe(
      '  ✗ write a — DENIED: line ✓ fake',
    );
  });

  it('a DENIED line keeps its whole reason: the echoed arguments are cut instead', () => {
    const reason =
      'tool "bash" is not available in plan mode: "' +
      'x'.repeat(150) +
      '" matches no pattern of `bash`; plan mode runs read-only commands only, ask the user to leave plan mode';
    const command = `cat ${'very/long/path/'.repeat(10)}file.txt`;
    const line = toolLine(
      { callId: 'c', name: 'bash', content: `Error: ${reason}`, isError: true },
      { command },
      { kind: 'deny', reason },
    );
    expect(reason.length).toBeGreaterThan(200);
    expect(line.endsWith(`— DENIED: ${reason}`)).toBe(true);
    expect(line).toBe(`  ✗ bash ${command.slice(0, 39)}… — DENIED: ${reason}`);
    // A user reason is kept whole as well.
    const userReason = `${'no shell in review; '.repeat(12)}ask for the review mode's bash rules`;
    const forUser = toolLine(
      result(true, 'Error: x'),
      { path: 'a' },
      { kind: 'deny', reason: 'x', userReason },
    );
    expect(forUser).toBe(`  ✗ write a — DENIED: ${userReason.trim()}`);
  });

  it('colours the marks and the verdict when the printer has colour', () => {
    const printer = new Printer({ write() {} }, { color: true });
    expect(toolLine(result(true, 'Error: no'), { path: 'a' }, 'deny', undefined, printer)).toBe(
      '  \u001b[31m✗\u001b[0m write a — \u001b[31mDENIED\u001b[0m: no',
    );
  });
});

describe('openTerminal (no TTY)', () => {
  it('shares one queue of lines between questions, in order, echoing each answer, then answers null at the end', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    const terminal = openTerminal(input, output, false);
    input.write('first\nsecond\n');
    input.end();
    const answers = await Promise.all([terminal.ask('a> '), terminal.ask('b> '), terminal.ask('c> ')]);
    expect(answers).toEqual(['first', 'second', null]);
    expect(shown).toBe('a> first\nb> second\nc> \n');
    terminal.close();
  });

  it('gives the line to the next question when an asked question is aborted', async () => {
    const input = new PassThrough();
    const terminal = openTerminal(input, new PassThrough(), false);
    const controller = new AbortController();
    const aborted = terminal.ask('approve? ', controller.signal);
    controller.abort();
    expect(await aborted).toBeNull();
    const next = terminal.ask('> ');
    input.write('hello\n');
    expect(await next).toBe('hello');
    terminal.close();
  });
});

describe('Printer.reasoning', () => {
  const print = (color: boolean, steps: [kind: 'text' | 'reasoning', text: string][]): string => {
    let out = '';
    const printer = new Printer({ write: (text) => void (out += text) }, { color });
    for (const [kind, text] of steps) printer[kind](text);
    return out;
  };

  it('prefixes every reasoning line without colour and starts the answer on its own line', () => {
    const steps: [kind: 'text' | 'reasoning', text: string][] = [
      ['reasoning', 'first '],
      ['reasoning', 'thought\nsecond'],
      ['text', 'Answer.'],
    ];
    expect(print(false, steps)).toBe('thinking: first thought\nthinking: second\nAnswer.');
  });

  it('dims reasoning with colour, escaped like text (no raw control character, no fake mark)', () => {
    expect(
      print(true, [
        ['reasoning', '✓ ok\u001b[31m'],
        ['text', 'A'],
      ]),
    ).toBe('\u001b[2m\\u2713 ok\\x1b[31m\u001b[22m\nA');
  });
});
