/** OpenCode 1.18.33 with dsh-mode's plugin (`install opencode`), in the build agent. */
import { describe, it } from 'vitest';
import { opencode } from './harness.js';
import { dshScenario } from './scenario.js';

describe('opencode with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (build)', async () => {
    await dshScenario(opencode, 'build', true);
  });
});
