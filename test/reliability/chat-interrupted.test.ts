/**
 * An interrupted chat says so in its exit code: `dsh-mode chat --demo` as a real child process on piped stdin (kept
 * open, so only the interrupts end it), SIGINT while the plan waits for approval cancels the turn and the plan stays
 * unapproved; a second SIGINT at the prompt exits with 130, as a shell reports an exit by SIGINT, never 0 (a script
 * running the chat must be able to tell an interrupted session from a finished one).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../engine/setup.js';
import { measured } from './config.js';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin/dsh-mode.mjs');

describe('chat: interrupted by Ctrl-C', () => {
  it('a first SIGINT cancels the pending approval, a second exits 130 with the plan unapproved', async () => {
    await measured('hostile', 'chat: two interrupts exit 130, the plan unapproved', null, async () => {
      const dir = tempDir('dsh-chat-interrupted-');
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.DEEPSEEK_API_KEY;
      const child = spawn(process.execPath, [BIN, 'chat', '--demo'], {
        cwd: dir,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const waiters: { text: string; from: number; resolve: () => void }[] = [];
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        for (const w of waiters.splice(0))
          if (stdout.indexOf(w.text, w.from) !== -1) w.resolve();
          else waiters.push(w);
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      // Waits for output (after `from`); the bound only turns a hang into a failure, no timing is asserted.
      const waitFor = (text: string, from = 0): Promise<void> =>
        Promise.race([
          new Promise<void>((done) =>
            stdout.indexOf(text, from) !== -1 ? done() : waiters.push({ text, from, resolve: done }),
          ),
          new Promise<void>((_, fail) =>
            setTimeout(
              () => fail(new Error(`no ${JSON.stringify(text)} in:\n${stdout}\n${stderr}`)),
              20_000,
            ).unref(),
          ),
        ]);
      try {
        await waitFor('Approve this plan?');
        child.kill('SIGINT');
        await waitFor('(turn cancelled)');
        // The prompt may arrive in the same chunk as the cancel note: look for it after the note, not after the chunk.
        await waitFor('plan> ', stdout.indexOf('(turn cancelled)'));
        child.kill('SIGINT');
        const code = await exited;
        expect(stdout).toContain('^C cancelling the turn (Ctrl-C again to exit)');
        expect(stdout).toContain('→ cancelled');
        expect(code, stderr).toBe(130);
        expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).not.toContain('shout');
        return {
          runs: 1,
          violations: 0,
          notes: 'piped stdin kept open; SIGINT at the approval, then at the prompt',
        };
      } finally {
        child.kill('SIGKILL');
      }
    });
  });
});
