/**
 * The ACP card kind of a tool call whose name is any string: a model controls tool names, so a hallucinated tool
 * named after an `Object.prototype` member (`constructor`, `toString`, `__proto__`) must still get a ToolKind
 * (`other`), not a function or `{}` from a plain-object lookup (bad input must not break the wire).
 */
import { describe, expect, it } from 'vitest';
import { updatesFor } from '../../../src/apps/acp/updates.js';
import type { SessionEvent } from '../../../src/host/types.js';

const call = (name: string): SessionEvent =>
  ({
    seq: 1,
    type: 'tool/call',
    data: { callId: 'c1', name, arguments: {} },
    time: '2026-11-30T00:00:00.000Z',
  }) as SessionEvent;

describe('hallucinated tool names map to kind `other`', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    it(name, () => {
      expect(updatesFor(call(name), () => undefined)[0]).toMatchObject({ kind: 'other', title: name });
    });
  }
});
