/** OpenCode 1.18.33 against the fake model: a plugin's tool.execute.before throw holds in the build agent. */
import { describe, it } from 'vitest';
import { opencode } from './harness.js';
import { smoke } from './smoke.js';

describe('opencode', () => {
  it('runs git status, and a tool.execute.before throw keeps README.md and reaches the model (build)', async () => {
    await smoke(opencode, 'build', (i) => (i.input as { tool?: unknown } | undefined)?.tool, 'bash');
  });
});
