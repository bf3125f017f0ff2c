/** Gemini CLI 0.61.0 against the fake model: the BeforeTool hook's deny holds in yolo. */
import { describe, it } from 'vitest';
import { gemini } from './harness.js';
import { smoke, writeAndRead } from './smoke.js';
import { dshScenario } from './scenario.js';

describe('gemini', () => {
  // Non-interactive Gemini CLI offers run_shell_command only in yolo: other modes drop it from the model's tools.
  it('runs git status, and a BeforeTool deny keeps README.md and reaches the model (yolo)', async () => {
    await smoke(gemini, 'yolo', (i) => i.tool_name, 'run_shell_command');
  });

  it('a denied write writes nothing, and a denied .env read keeps the secret from the model (yolo; Gemini refuses .env as outside the workspace before any hook)', async () => {
    await writeAndRead(gemini, 'yolo', false);
  });
});

describe('gemini with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (yolo)', async () => {
    await dshScenario(gemini, 'yolo', false);
  });
});
