/**
 * Small wording rules of load diagnostics: a decision written as a verb form (`denied`, `asks`) gets the same
 * did-you-mean a misspelling does, and a missing required key says what to add, from the schema's description.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../../src/compile/language/load.js';

const messages = (text: string) =>
  loadPolicyText(text, 'p.yaml').diagnostics.map((d) => ({ message: d.message, help: d.help }));

describe('load diagnostic wording', () => {
  it.each([
    ['default: denied', '`denied` is not a decision for `default`: did you mean `deny`?'],
    ['default: asks', '`asks` is not a decision for `default`: did you mean `ask`?'],
    ['tools:\n  read: allowed', '`allowed` is not a decision for `tools.read`: did you mean `allow`?'],
    ['tools:\n  read: denies', '`denies` is not a decision for `tools.read`: did you mean `deny`?'],
  ])('%j → %s', (body, message) => {
    expect(messages(`mode: review\n${body}\n`)[0]?.message).toBe(message);
  });

  it('gives a missing required key a help line that says what the key is', () => {
    expect(messages('description: x\n')).toEqual([
      {
        message: 'missing required key `mode`',
        help: 'add `mode:`, the mode this document gives policy for: lowercase letters, digits and dashes; `default` is reserved',
      },
    ]);
    const test = messages('mode: review\ntests:\n  - tool: read\n');
    expect(test[0]?.message).toBe('missing required key `expect` in `tests[0]`');
    expect(test[0]?.help).toMatch(/^add `expect:`, /);
  });
});
