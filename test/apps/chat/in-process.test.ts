/**
 * `dsh-mode chat` run in the test's process (`runChat` over streams, so its code counts towards coverage): the
 * real deployment, real tools in temp folders, the real scripted and demo models and the session logs read back.
 * stdin is a pipe or, for the TTY paths, a stream under Node's readline in terminal mode (keys typed into it, as a
 * terminal would send them). chat.test.ts keeps the binary runs and the tmux ones.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChat, type ChatOptions } from '../../../src/apps/chat/run.js';
import { journal } from './plan-session.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dsh-chat-ip-'));
}

/** A running chat: keys go to its stdin, its stdout is collected, `waitFor` resolves once a text shows. */
function startChat(
  options: Omit<ChatOptions, 'cwd'>,
  cwd: string,
  io: { tty?: boolean; color?: boolean } = {},
) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  const watchers: { text: string; resolve: () => void }[] = [];
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of watchers.filter((w) => out.includes(w.text))) {
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  });
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = runChat({ cwd, ...options }, { stdin, stdout, stderr, tty: io.tty === true, color: io.color });
  return {
    type: (text: string) => void stdin.write(text),
    end: () => void stdin.end(),
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    done,
    /** Resolves when `text` has been printed; the bound only turns a hang into a failure. */
    waitFor(text: string): Promise<void> {
      if (out.includes(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${JSON.stringify(text)} in:\n${out}\n${err}`)),
          20_000,
        );
        watchers.push({ text, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

/** Runs a chat on piped stdin holding `input`. */
async function pipedChat(options: Omit<ChatOptions, 'cwd'>, cwd: string, input: string) {
  const chat = startChat(options, cwd);
  chat.type(input);
  chat.end();
  const code = await chat.done;
  return { code, out: chat.out, err: chat.err };
}

function events(dir: string, out: string): { type: string; data: Record<string, unknown> }[] {
  const id = /session (\S+)/.exec(out)?.[1];
  if (!id) throw new Error(`no session id in:\n${out}`);
  return journal(dir, id);
}

function script(dir: string, entries: unknown[]): string {
  const file = join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

/** A deployment with a `careful` mode where `bash` runs and `write` asks. */
function carefulDeployment(dir: string): string {
  const file = join(dir, 'deployment.yml');
  writeFileSync(
    file,
    [
      '- name: host',
      '- name: mode',
      '  config:',
      '    modes:',
      '      careful:',
      '        description: Commands run; writes ask first.',
      '        tools: { bash: allow, read: allow, write: ask }',
      '        default: deny',
      '- name: demo',
      '',
    ].join('\n'),
  );
  return file;
}

let savedKey: string | undefined;
beforeEach(() => {
  savedKey = process.env.DEEPSEEK_API_KEY;
  delete process.env.DEEPSEEK_API_KEY;
});
afterEach(() => {
  if (savedKey !== undefined) process.env.DEEPSEEK_API_KEY = savedKey;
});

describe('leaving the chat', () => {
  it('`/exit` at an approval question cancels it and leaves (exit 0), never sending it as feedback', async () => {
    const dir = tempDir();
    const run = await pipedChat({ demo: true }, dir, '/exit\n');
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('→ cancelled (leaving the chat)');
    const log = events(dir, run.out);
    expect(log.find((e) => e.type === 'approval/decided')?.data).toEqual({
      callId: expect.any(String),
      outcome: 'cancelled',
      edited: false,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(log)).not.toContain('/exit');
    expect(log.filter((e) => e.type === 'mode/set').map((e) => e.data.mode)).toEqual(['plan']);
    expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).not.toContain('shout');
    const id = /session (\S+)/.exec(run.out)![1]!;
    expect(run.out.trimEnd().split('\n').at(-1)).toBe(`resume with: dsh-mode chat --demo --resume ${id}`);
  });

  it('Ctrl-D at a question on a TTY ends its line, cancels it, and the chat ends after the turn', async () => {
    const dir = tempDir();
    const chat = startChat({ demo: true }, dir, { tty: true });
    await chat.waitFor('Approve this plan?');
    chat.type('\u0004');
    expect(await chat.done).toBe(0);
    // The outcome starts its own line instead of running on after the question.
    // (readline moves the cursor after the prompt with `ESC[nG`.)
    expect(chat.out).toMatch(/type feedback: (\u001b\[\d+G)?\n {2}→ cancelled\n/);
    expect(chat.out).toMatch(/\nresume with: dsh-mode chat --demo --resume \S+\n$/);
    expect(events(dir, chat.out).find((e) => e.type === 'approval/decided')?.data.outcome).toBe('cancelled');
  });

  it('the resume line carries the options that find the session again, quoted for a shell', async () => {
    const dir = tempDir();
    const file = script(dir, [{ text: 'Hello.' }]);
    const run = await pipedChat({ modelScript: file, workspace: '.', prompt: 'hi' }, dir, '');
    expect(run.code, run.err).toBe(0);
    const id = /session (\S+)/.exec(run.out)![1]!;
    expect(run.out).toContain(
      `resume with: dsh-mode chat --workspace . --model-script ${file} --resume ${id}\n`,
    );
    const spaced = join(dir, "it's here.json");
    writeFileSync(spaced, JSON.stringify([{ text: 'Hi.' }]));
    const quoted = await pipedChat({ modelScript: spaced, prompt: 'hi' }, dir, '');
    expect(quoted.out).toContain(`--model-script '${join(dir, "it'\\''s here.json")}' --resume`);
  });
});

describe("--config relative to the chat's folder", () => {
  it("reads the file from `cwd`, not from the process's folder", async () => {
    const dir = tempDir();
    carefulDeployment(dir);
    expect(process.cwd()).not.toBe(dir);
    const run = await pipedChat(
      {
        config: 'deployment.yml',
        modelScript: script(dir, [{ text: 'Careful.' }]),
        mode: 'careful',
        prompt: 'one',
      },
      dir,
      '',
    );
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('── mode is now careful ──');
    const missing = await pipedChat({ config: 'nowhere.yml', prompt: 'one' }, dir, '');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`${join(dir, 'nowhere.yml')}:1:1`);
  });
});

describe('a resumed session in a mode this deployment does not define', () => {
  it('says in the banner that every tool is denied, and why', async () => {
    const dir = tempDir();
    const config = carefulDeployment(dir);
    const first = await pipedChat(
      { config, modelScript: script(dir, [{ text: 'Careful.' }]), mode: 'careful', prompt: 'one' },
      dir,
      '',
    );
    expect(first.code, first.err).toBe(0);
    const id = /session (\S+)/.exec(first.out)![1]!;
    // The embedded deployment (no cordis.yml here) has only default and plan.
    const second = await pipedChat({ resume: id }, dir, '/exit\n');
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain('  mode: careful\n');
    expect(second.out).toContain(
      '  mode `careful` is not defined in this deployment, so every tool is denied; switch with /mode NAME',
    );
  });
});

describe('lines typed during a turn on a TTY', () => {
  /** A script whose first call blocks until the file `go` exists, so a turn is running while the test types. */
  const blocking = {
    name: 'bash',
    arguments: { command: 'while [ ! -f go ]; do sleep 0.05; done; echo ready' },
  };

  it('are queued, said to be, and sent when the turn ends', async () => {
    const dir = tempDir();
    const file = script(dir, [{ tool_calls: [blocking] }, { text: 'First done.' }, { text: 'Second done.' }]);
    const chat = startChat({ modelScript: file }, dir, { tty: true });
    await chat.waitFor('default> ');
    chat.type('first\r');
    chat.type('second\r');
    await chat.waitFor('(queued, sent when this turn ends: second)');
    writeFileSync(join(dir, 'go'), '');
    await chat.waitFor('Second done.');
    chat.type('/exit\r');
    expect(await chat.done).toBe(0);
    const log = events(dir, chat.out);
    expect(log.filter((e) => e.type === 'user/message').map((e) => e.data.text)).toEqual(['first', 'second']);
  });

  it('never answer an approval question asked after them', async () => {
    const dir = tempDir();
    const file = script(dir, [
      { tool_calls: [blocking] },
      { tool_calls: [{ name: 'write', arguments: { path: 'x.txt', content: 'x\n' } }] },
      { text: 'After the write.' },
      { text: 'Got your y.' },
    ]);
    const chat = startChat({ config: carefulDeployment(dir), modelScript: file, mode: 'careful' }, dir, {
      tty: true,
    });
    await chat.waitFor('> ');
    chat.type('go on\r');
    chat.type('y\r');
    await chat.waitFor('(queued, sent when this turn ends: y)');
    writeFileSync(join(dir, 'go'), '');
    await chat.waitFor('y / n / feedback: ');
    chat.type('n\r');
    await chat.waitFor('Got your y.');
    chat.type('/exit\r');
    expect(await chat.done).toBe(0);
    const log = events(dir, chat.out);
    expect(log.find((e) => e.type === 'approval/decided')?.data.outcome).toBe('rejected');
    expect(log.filter((e) => e.type === 'user/message').map((e) => e.data.text)).toEqual(['go on', 'y']);
    expect(() => readFileSync(join(dir, 'x.txt'))).toThrow();
  });
});

describe('the demo model tells the truth', () => {
  it('in the default mode its write goes through and it says so, without claiming plan mode', async () => {
    const dir = tempDir();
    const run = await pipedChat({ demo: true, mode: 'default' }, dir, 'anything else?\n');
    expect(run.code, run.err).toBe(0);
    expect(run.out).not.toContain('plan mode');
    expect(run.out).toContain("I'll look around before changing anything.");
    expect(run.out).toContain('✓ write src/greet.js — ok');
    expect(run.out).toContain('The write went through: no plan was needed here.');
    expect(run.out).toContain('I am the demo model: I only know the greet() walk-through');
    expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).toContain('shout');
  });

  it('a resumed demo keeps its folder and waits for the user', async () => {
    const dir = tempDir();
    const first = await pipedChat({ demo: true }, dir, 'y\n');
    const id = /session (\S+)/.exec(first.out)![1]!;
    const second = await pipedChat({ demo: true, resume: id }, dir, '/mode\n');
    expect(second.code, second.err).toBe(0);
    expect(second.out).not.toContain('Add a `shout` option to greet() that returns');
    expect(second.out).toContain('mode: default\n');
    expect(readFileSync(join(dir, '.dsh/demo/src/greet.js'), 'utf8')).toContain('shout');
  });
});

describe('a denied call, in words for the user', () => {
  it('the DENIED line says what the user can do; the model still gets its next-step advice', async () => {
    const dir = tempDir();
    const run = await pipedChat({ demo: true }, dir, 'n\n');
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(
      '✗ write src/greet.js — DENIED: tool "write" is not available in plan mode until you approve a plan\n',
    );
    expect(run.out).not.toContain('present your plan with exit_plan_mode');
    const denied = events(dir, run.out).find((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(denied?.data.content).toBe(
      'Error: tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready',
    );
  });

  it('a call denied in a mode this deployment does not define tells the user to switch mode', async () => {
    const dir = tempDir();
    const file = script(dir, [
      { tool_calls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
      { text: 'I cannot read it.' },
    ]);
    const ghost = join(dir, 'ghost.yml');
    writeFileSync(
      ghost,
      '- name: host\n- name: mode\n  config:\n    modes:\n      ghost: { default: deny }\n- name: demo\n',
    );
    // The first run lands `ghost`; the second resumes it under a deployment without that mode.
    const first = await pipedChat({ config: ghost, modelScript: file, mode: 'ghost', prompt: 'go' }, dir, '');
    expect(first.code, first.err).toBe(0);
    const id = /session (\S+)/.exec(first.out)![1]!;
    const second = await pipedChat({ modelScript: file, resume: id, prompt: 'go' }, dir, '');
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain(
      '✗ read a.txt — DENIED: tool "read" is not available in ghost mode: this deployment does not define ghost mode, so every tool is denied until you switch mode\n',
    );
    expect(second.out).not.toContain('ask the user to switch mode');
  });
});
