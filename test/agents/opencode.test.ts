/** OpenCode 1.18.33 against the fake model: a plugin's tool.execute.before throw holds in the build agent. */
import { describe, it } from 'vitest';
import { opencode } from './harness.js';
import { smoke, writeAndRead } from './smoke.js';
import { dshScenario } from './scenario.js';

describe('opencode', () => {
  it('runs git status, and a tool.execute.before throw keeps README.md and reaches the model (build)', async () => {
    await smoke(opencode, 'build', (i) => (i.input as { tool?: unknown } | undefined)?.tool, 'bash');
  });

  it('a denied write writes nothing, and a denied .env read keeps the secret from the model (build)', async () => {
    await writeAndRead(opencode, 'build', true);
  });
});

describe('opencode with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (build)', async () => {
    await dshScenario(opencode, 'build', true);
  });
});
