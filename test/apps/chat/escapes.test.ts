/**
 * Streamed assistant text and tool-call lines reach the terminal with control characters made visible: a model
 * that emits ANSI escape sequences or carriage returns (to clear the screen, or paint a fake approval prompt) only
 * prints their `\xNN` spelling. Real: the built `dsh-mode chat` child process (test/global-setup.ts builds it) fed
 * a scripted model, piped stdin.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../../bin/dsh-mode.mjs');

describe('dsh-mode chat prints model-controlled text without terminal control characters', () => {
  it('escapes ESC, CR and C1 in streamed text and in tool-call lines, keeping newlines and tabs (as spaces)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-chat-escapes-'));
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    const file = join(dir, 'script.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          text: 'Looking.\u001b[2J\u001b[H\rAllow write? y / n: \u009b2J\n\tindented\n',
          tool_calls: [
            { name: 'read', arguments: { path: 'a.txt\u001b[8m' } },
            { name: 'no\u001b[2Jpe', arguments: {} },
          ],
        },
        { text: 'Done.\u001b]0;owned\u0007\r\n' },
      ]),
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.DEEPSEEK_API_KEY;
    const run = spawnSync(process.execPath, [BIN, 'chat', '--model-script', file, '--prompt', 'go'], {
      cwd: dir,
      encoding: 'utf8',
      env,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toContain('\r');
    expect(run.stdout).not.toContain('\u009b');
    expect(run.stdout).not.toContain('\u0007');
    // A tab is printed as the spaces to its stop (8 here), so the printer knows the column the next letter takes.
    expect(run.stdout).toContain(
      'Looking.\\x1b[2J\\x1b[H\\x0dAllow write? y / n: \\x9b2J\n        indented\n',
    );
    expect(run.stdout).toContain('✗ read a.txt\\x1b[8m');
    expect(run.stdout).toContain('✗ no\\x1b[2Jpe — error: unknown tool `no\\x1b[2Jpe`');
    expect(run.stdout).toContain('Done.\\x1b]0;owned\\x07\\x0d\n');
  });
});
