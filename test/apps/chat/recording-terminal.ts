/**
 * A terminal stand-in for the answerer's tests: it records every prompt and write, and answers `n`.
 * @module
 */
import type { Terminal } from '../../../src/apps/chat/terminal.js';

export function recordingTerminal(out: string[]): Terminal {
  return {
    tty: false,
    asking: false,
    async ask(prompt: string) {
      out.push(prompt);
      return 'n';
    },
    write: (text: string) => void out.push(text),
    onInterrupt() {},
    onTypedAhead() {},
    requestLeave() {},
    onLeave() {},
    close() {},
  };
}
