/**
 * Review finding: the ACP card kind was looked up in a plain object, so a call to a hallucinated tool named after
 * an `Object.prototype` member (`constructor`, `toString`, `__proto__`) produced a `tool_call` whose `kind` was a
 * function or `{}` instead of a ToolKind (a model controls tool names: bad input must not break the wire).
 */
import { describe, expect, it } from 'vitest';
import { updatesFor } from '../../src/cli/acp/updates.js';
import type { SessionEvent } from '../../src/host/types.js';

const call = (name: string): SessionEvent =>
  ({
    seq: 1,
    type: 'tool/call',
    data: { callId: 'c1', name, arguments: {} },
    time: '2026-11-30T00:00:00.000Z',
  }) as SessionEvent;

describe('review: hallucinated tool names map to kind `other`', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    it(name, () => {
      expect(updatesFor(call(name), () => undefined)[0]).toMatchObject({ kind: 'other', title: name });
    });
  }
});
