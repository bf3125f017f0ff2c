/** Codex 0.169.0 against the fake model: the PreToolUse hook's deny holds with approvals and sandbox bypassed. */
import { describe, it } from 'vitest';
import { codex } from './harness.js';
import { smoke, writeAndRead } from './smoke.js';

describe('codex', () => {
  it('runs git status, and a PreToolUse deny keeps README.md and reaches the model (bypass)', async () => {
    // exec_command reaches the hook as tool_name "Bash".
    await smoke(codex, 'bypass', (i) => i.tool_name, 'Bash');
  });

  it('a denied write writes nothing, and a denied .env read keeps the secret from the model (bypass; the write is an apply_patch, the read a cat)', async () => {
    await writeAndRead(codex, 'bypass', true);
  });
});
