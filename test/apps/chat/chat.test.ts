/**
 * `dsh-mode chat`, driven as a real child process (bin/dsh-mode.mjs on the dist/ that test/global-setup.ts
 * builds): through piped stdin (one queue of lines for the REPL and the approval questions, docs/apps.md),
 * and through a real terminal in tmux when tmux is installed. Real temp folders; the session logs are read back.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasTmux, startTmux, type TmuxSession } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `dsh-mode chat ARGS` in `cwd` with `input` as stdin (closed after it). */
function chat(args: string[], cwd: string, input = ''): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DEEPSEEK_API_KEY;
  const result = spawnSync(process.execPath, [BIN, 'chat', ...args], { cwd, input, encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dsh-chat-'));
}

/** The session id the chat printed at start. */
function sessionId(run: Run): string {
  const match = /session (\S+)/.exec(run.stdout);
  if (!match) throw new Error(`no session id in:\n${run.stdout}\n${run.stderr}`);
  return match[1]!;
}

function events(file: string): { type: string; data: Record<string, unknown> }[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

function script(dir: string, entries: unknown[]): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

describe('dsh-mode chat --demo (npm start), piped stdin', () => {
  it('walks through plan mode: a denied write, the plan approved with `y`, then the edit', () => {
    const dir = tempDir();
    const run = chat(['--demo'], dir, 'y\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/✗ write src\/greet\.js — DENIED: tool "write" is not available in plan mode/);
    expect(run.stdout).toMatch(/┌─ Add a `shout` option to greet\(\) ─+┐/);
    // The title is the plan's heading: shown once, in the top border.
    expect(run.stdout).not.toContain('# Add a `shout` option');
    expect(run.stdout).toContain(
      '✓ exit_plan_mode — plan approved: the full toolset returns on the next step',
    );
    expect(run.stdout).toContain(
      'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: y',
    );
    expect(run.stdout).toContain('── mode is now default ──');
    expect(run.stdout).toMatch(/✓ edit src\/greet\.js — ok/);
    expect(run.stdout).toContain("Done: `greet('Ada', { shout: true })` returns `HELLO, ADA`");
    expect(run.stdout).toContain(`resume with: dsh-mode chat --demo --resume ${sessionId(run)}\n`);
    expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).toContain('shout');
    // Writes nothing outside .dsh/.
    expect(readdirSync(dir)).toEqual(['.dsh']);
    const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan', 'default']);
  });

  it('sends other text back as feedback: the plan is rejected and the session stays in plan mode', () => {
    const dir = tempDir();
    const run = chat(['--demo'], dir, 'Please add a test as well\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('→ rejected with feedback: Please add a test as well');
    expect(run.stdout).toContain(
      '✗ exit_plan_mode — NOT APPROVED: you answered with feedback, sent to the model; still planning',
    );
    // The demo model reads the outcome: no edit is tried, and nothing claims to be done.
    expect(run.stdout).not.toMatch(/ edit src\/greet\.js/);
    expect(run.stdout).not.toContain('Done');
    expect(run.stdout).toContain('The plan was not approved, so I change nothing and stay in plan mode.');
    const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
    expect(log.find((e) => e.type === 'approval/decided')?.data).toMatchObject({
      outcome: 'rejected',
      feedback: 'Please add a test as well',
    });
    const exit = log.find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode');
    expect(exit?.data.isError).toBe(true);
    expect(String(exit?.data.content)).toContain('Please add a test as well');
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).not.toContain('shout');
  });

  it('rejects on `n` and on an empty line, without feedback', () => {
    for (const answer of ['n\n', '\n']) {
      const dir = tempDir();
      const run = chat(['--demo'], dir, answer);
      const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
      expect(log.find((e) => e.type === 'approval/decided')?.data).toEqual({
        callId: expect.any(String),
        outcome: 'rejected',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        edited: false,
      });
    }
  });

  it('cancels the approval at the end of input and never leaves plan mode', () => {
    const dir = tempDir();
    const run = chat(['--demo'], dir, '');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('→ cancelled');
    const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
    expect(log.find((e) => e.type === 'approval/decided')?.data.outcome).toBe('cancelled');
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
  });
});

describe('dsh-mode chat: /mode, --prompt, --resume', () => {
  it('handles /mode, /mode NAME and an unknown mode without sending them to the model', () => {
    const dir = tempDir();
    const file = script(dir, [{ text: 'Hello.' }]);
    const run = chat(
      ['--model-script', file],
      dir,
      '/mode\n/mode nope\n/mode pln\n/mode plan\nhi\n/mode\n/help\n/exit\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /mode: default\navailable modes:\n {2}\* default +No mode: the full toolset, no policy\.\n {4}plan +Explore read-only/,
    );
    expect(run.stdout).toContain('unknown mode `nope`; available modes: default, plan\n');
    expect(run.stdout).toContain(
      'unknown mode `pln`; available modes: default, plan; did you mean `plan`?\n',
    );
    expect(run.stdout).toContain('── mode → plan: applies from the next turn ──');
    expect(run.stdout).toContain('default→plan> hi');
    expect(run.stdout).toContain('Hello.');
    expect(run.stdout).toMatch(/mode: plan\navailable modes:\n {4}default .*\n {2}\* plan /);
    expect(run.stdout).toContain('/mode NAME    switch mode');
    const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
    expect(log.filter((e) => e.type === 'user/message').map((e) => e.data.text)).toEqual(['hi']);
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
  });

  it('--prompt runs one turn and exits', () => {
    const dir = tempDir();
    const file = script(dir, [{ text: 'One answer.' }]);
    const run = chat(['--model-script', file, '--prompt', 'just this'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('> just this\nOne answer.\n');
    const log = events(join(dir, '.dsh/sessions', `${sessionId(run)}.jsonl`));
    expect(log.filter((e) => e.type === 'turn/start')).toHaveLength(1);
  });

  it('--resume continues the log in its logged mode, and --mode wins over it', () => {
    const dir = tempDir();
    const file = script(dir, [{ text: 'First.' }]);
    const first = chat(['--model-script', file, '--mode', 'plan', '--prompt', 'one'], dir);
    const id = sessionId(first);
    const second = chat(['--model-script', file, '--resume', id], dir, '/mode\n');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`session ${id} (resumed)`);
    expect(second.stdout).toContain('mode: plan\n');
    const third = chat(['--model-script', file, '--resume', id, '--mode', 'default', '--prompt', 'two'], dir);
    expect(third.code, third.stderr).toBe(0);
    const log = events(join(dir, '.dsh/sessions', `${id}.jsonl`));
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan', 'default']);
    expect(log.filter((e) => e.type === 'user/message').map((e) => e.data.text)).toEqual(['one', 'two']);
  });

  it('refuses an unknown --mode (exit 1) and a session that does not exist (exit 2)', () => {
    const dir = tempDir();
    const file = script(dir, []);
    const mode = chat(['--model-script', file, '--mode', 'nope', '--prompt', 'x'], dir);
    expect(mode.code).toBe(1);
    expect(mode.stderr).toContain('unknown mode `nope`; available modes: default, plan');
    const typo = chat(['--model-script', file, '--mode', 'pln', '--prompt', 'x'], dir);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown mode `pln`; available modes: default, plan; did you mean `plan`?');
    const resume = chat(['--model-script', file, '--resume', 'no-such-session'], dir);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('no-such-session');
  });
});

/** A chat --demo running in a detached tmux session. */
function tmuxChat(dir: string): TmuxSession {
  const command = `env -u DEEPSEEK_API_KEY ${process.execPath} ${BIN} chat --demo; echo EXITED:$?; sleep 30`;
  return startTmux('dsh-chat', dir, command);
}

describe.skipIf(!hasTmux)('dsh-mode chat in a real terminal (tmux)', () => {
  it('asks the approval on the TTY, shows the mode in the prompt, and exits on /exit', async () => {
    const dir = tempDir();
    const chat = tmuxChat(dir);
    try {
      await chat.waitFor('Approve this plan?');
      chat.send('y', 'Enter');
      await chat.waitFor("that was the demo's whole script");
      chat.send('/mode', 'Enter');
      const shown = await chat.waitFor('available modes:');
      expect(shown).toContain('default> /mode');
      expect(shown).toContain('mode: default');
      chat.send('/exit', 'Enter');
      await chat.waitFor('EXITED:0');
      expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).toContain('shout');
    } finally {
      chat.stop();
    }
  });

  it('leaves on /exit at the approval question, and prints the command that resumes the session', async () => {
    const dir = tempDir();
    const chat = tmuxChat(dir);
    try {
      await chat.waitFor('Approve this plan?');
      chat.send('/exit', 'Enter');
      const shown = await chat.waitFor('EXITED:0');
      expect(shown).toContain('→ cancelled (leaving the chat)');
      expect(shown).toMatch(/resume with: dsh-mode chat --demo --resume \S+/);
      expect(shown).not.toContain('rejected with feedback');
    } finally {
      chat.stop();
    }
  });

  it('ends the question line on Ctrl-D, so the outcome starts a line of its own', async () => {
    const dir = tempDir();
    const chat = tmuxChat(dir);
    try {
      await chat.waitFor('Approve this plan?');
      chat.send('C-d');
      const shown = await chat.waitFor('EXITED:0');
      expect(shown).toMatch(/or type feedback:\s*\n {2}→ cancelled\n/);
    } finally {
      chat.stop();
    }
  });

  it('cancels the turn on Ctrl-C (the plan stays unapproved) and exits on a second Ctrl-C', async () => {
    const dir = tempDir();
    const chat = tmuxChat(dir);
    try {
      await chat.waitFor('Approve this plan?');
      chat.send('C-c');
      const cancelled = await chat.waitFor('(turn cancelled)');
      expect(cancelled).toContain('^C cancelling the turn (Ctrl-C again to exit)');
      expect(cancelled).toContain('→ cancelled');
      await chat.waitFor('plan> ');
      chat.send('C-c');
      // 130, as a shell reports an exit by SIGINT: a script can tell an interrupted chat from a finished one.
      await chat.waitFor('EXITED:130');
      expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).not.toContain('shout');
    } finally {
      chat.stop();
    }
  });
});
