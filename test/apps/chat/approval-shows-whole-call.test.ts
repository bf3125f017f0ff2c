/**
 * The chat's terminal approval question is where a human decides, so it shows model-controlled text whole and
 * filtered: (1) a call's command or path is never clipped (a `bash` with a long harmless prefix must not hide the
 * part being approved, `…; rm -rf ~`); (2) terminal control sequences in the plan or the arguments (ESC, CR) never
 * reach the terminal, so a plan cannot hide or overwrite lines of itself and the human approves what the log
 * records. Real cordis Context, host and mode plugin; the terminal is a recording test double of the chat's
 * `Terminal` seam (the answer is `n`).
 */
import { describe, expect, it } from 'vitest';
import { answerApprovals } from '../../../src/apps/chat/answerer.js';
import { Printer } from '../../../src/apps/chat/render.js';
import { agentOf, setup } from '../../engine/setup.js';
import { recordingTerminal } from './recording-terminal.js';

async function shown(toolName: string, args: unknown): Promise<string> {
  const { ctx } = await setup();
  const { agent } = agentOf(ctx, []);
  const out: string[] = [];
  const printer = new Printer({ write: (text) => void out.push(text) });
  answerApprovals(ctx, agent, recordingTerminal(out), printer);
  const outcome = await ctx.approval.request({ agent, toolName, callId: 'c1', arguments: args });
  expect(outcome).toEqual({ outcome: 'rejected' });
  return out.join('');
}

describe('the approval question shows the whole call, and no terminal control sequences', () => {
  it('a long bash command is shown whole', async () => {
    const command = `echo ${'a'.repeat(80)}; rm -rf ~/important`;
    expect(await shown('bash', { command })).toContain('rm -rf ~/important');
  });

  it('escape sequences and carriage returns in a plan or in arguments do not reach the terminal', async () => {
    const plan = '# Tidy up\n\n1. Format the code.\x1b[8m\n2. Delete the backups.\x1b[0m\r3. Done.';
    for (const text of [
      await shown('exit_plan_mode', { plan }),
      await shown('write', { path: 'a.txt\x1b[2K\rnotes.txt', content: 'x' }),
    ]) {
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    expect(await shown('exit_plan_mode', { plan })).toContain('Delete the backups.');
  });
});
