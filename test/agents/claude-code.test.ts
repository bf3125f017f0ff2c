/** Claude Code 2.1.328 against the fake model: the PreToolUse hook's deny holds in bypassPermissions. */
import { describe, it } from 'vitest';
import { claudeCode } from './harness.js';
import { smoke, writeAndRead } from './smoke.js';

describe('claude-code', () => {
  it('runs git status, and a PreToolUse deny keeps README.md and reaches the model (bypassPermissions)', async () => {
    await smoke(claudeCode, 'bypassPermissions', (i) => i.tool_name, 'Bash');
  });

  it('a denied write writes nothing, and a denied .env read keeps the secret from the model (bypassPermissions)', async () => {
    await writeAndRead(claudeCode, 'bypassPermissions', true);
  });
});
