/**
 * Gemini CLI 0.61.0 with dsh-mode's BeforeTool hook. Non-interactive Gemini CLI offers run_shell_command only in
 * yolo, and refuses a `.env` read as outside the workspace before any hook.
 */
import { describe, it } from 'vitest';
import { gemini } from './harness.js';
import { dshScenario } from './scenario.js';

describe('gemini with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (yolo)', async () => {
    await dshScenario(gemini, 'yolo', false);
  });
});
