/**
 * Hostile session logs on real files, resumed by the real `ctx.sessions` with the real engine loaded: a log of
 * 1,000,000 events; a real child process killed (SIGKILL, SIGHUP) while a plan awaits approval, then resumed and
 * sent to the real OpenAI-compatible adapter against a loopback server that, like the real API, answers 400 to a
 * tool call without a result; files that are not journals (`--resume ./VERSION`); symbolic links in place of a
 * log, of `.dsh/sessions` and of `.dsh`; and invalid UTF-8 inside a line. Nothing is faked but the model (the
 * scripted model, or the loopback server behind the real adapter). Also the lint formatter on 200,000 findings, one of
 * the spread calls over unbounded arrays that the long resume found.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldMode } from '../../src/engine/index.js';
import {
  buildTranscript,
  openaiModel,
  scriptedModel,
  toWireMessages,
  type Model,
  type SessionEvent,
  type Tool,
} from '../../src/host/index.js';
import { eventsOf, setup, tempDir } from '../engine/setup.js';
import { formatStylish } from '../../src/cli/formatters/stylish.js';
import type { Diagnostic } from '../../src/compile/types.js';
import { RawAcpClient } from './acp-client.js';
import { copyDist } from '../dist-copy.js';
import { check, measured } from './config.js';

const TIME = '2026-11-30T00:00:00.000Z';
const line = (seq: number, type: string, data: unknown): string =>
  JSON.stringify({ seq, type, data, time: TIME });
const probe = (name: string, readOnly: boolean): Tool => ({
  name,
  description: name,
  parameters: { type: 'object' },
  ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
  execute: () => ({ content: `${name} ran` }),
});

/** A session folder with a one-turn journal `id.jsonl`; returns the file and its text. */
function journal(workspace: string, id: string): { file: string; text: string } {
  const dir = join(workspace, '.dsh', 'sessions');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${id}.jsonl`);
  const text =
    [
      line(1, 'turn/start', { turn: 1 }),
      line(2, 'user/message', { text: 'hello' }),
      line(3, 'turn/end', { turn: 1, reason: 'done' }),
    ].join('\n') + '\n';
  writeFileSync(file, text);
  return { file, text };
}

describe('a long session', () => {
  it('resumes a log of 1,000,000 events and runs the next turn on it', async () => {
    await measured('hostile', 'journal: resume of 1,000,000 events', null, async () => {
      const { ctx, workspace } = await setup();
      ctx.tools.register(probe('look', true));
      const dir = join(workspace, '.dsh', 'sessions');
      mkdirSync(dir, { recursive: true });
      // Turns of seven events (four of them messages), written in chunks: about 570,000 messages in all.
      const total = 1_000_000;
      const fd = openSync(join(dir, 'long.jsonl'), 'w');
      let seq = 0;
      let turn = 0;
      let messages = 0;
      let chunk: string[] = [];
      const add = (type: string, data: unknown) => chunk.push(line(++seq, type, data));
      while (seq + 7 <= total) {
        turn += 1;
        const callId = `call_${turn}_1_1`;
        add('turn/start', { turn });
        add('user/message', { text: `task ${turn}` });
        add('assistant/message', { text: '', toolCalls: [{ callId, name: 'look', arguments: {} }] });
        add('tool/call', { callId, name: 'look', arguments: {} });
        add('tool/result', { callId, name: 'look', content: 'look ran', isError: false });
        add('assistant/message', { text: 'done', toolCalls: [] });
        add('turn/end', { turn, reason: 'done' });
        messages += 4;
        if (chunk.length >= 70_000) {
          writeSync(fd, chunk.join('\n') + '\n');
          chunk = [];
        }
      }
      turn += 1;
      add('turn/start', { turn });
      while (seq < total) {
        add('user/message', { text: 'more' });
        messages += 1;
      }
      writeSync(fd, chunk.join('\n') + '\n');
      closeSync(fd);

      const session = await ctx.sessions.resume('long');
      // The open last turn is closed on resume.
      expect(session.events).toHaveLength(total + 1);
      const seen: number[] = [];
      const scripted = scriptedModel([{ text: 'resumed fine' }], { record: false });
      const model: Model = {
        name: 'scripted',
        complete: (request, onChunk) => {
          seen.push(request.messages.length);
          return scripted.complete(request, onChunk);
        },
      };
      const agent = ctx.agents.create({ session, model, options: {} });
      const outcome = await agent.prompt('next');
      const end = eventsOf(session.events, 'turn/end').at(-1)!.data;
      expect(end.error).toBeUndefined();
      expect(outcome).toEqual({ reason: 'done', text: 'resumed fine' });
      expect(seen).toEqual([messages + 1]);
      session.close();
      return { runs: 1, violations: 0, notes: `${total} events, ${messages} messages in the transcript` };
    });
  }, 300_000);
});

describe('no spread call over an unbounded array', () => {
  it('the lint formatter takes 200,000 findings (a spread of them overflowed the stack)', async () => {
    await measured('hostile', 'journal: no spread call over 200,000 lint findings', null, async () => {
      const diagnostics: Diagnostic[] = Array.from({ length: 200_000 }, (_, i) => ({
        code: 'unknown-tool',
        severity: 'warning',
        message: `finding ${i}`,
        file: 'catalog.json',
        path: [],
        range: { start: { line: i + 1, column: 1 }, end: { line: i + 1, column: 2 } },
      }));
      const text = formatStylish(
        {
          diagnostics,
          errorCount: 0,
          warningCount: diagnostics.length,
          infoCount: 0,
          files: ['catalog.json'],
        },
        { color: false },
      );
      const lines = text.split('\n');
      expect(lines).toContain(`  ${'1:1'.padEnd(8)}  warning  finding 0  unknown-tool`);
      expect(lines).toContain('  200000:1  warning  finding 199999  unknown-tool');
      return { runs: 1, violations: 0 };
    });
  });
});

/** An OpenAI-compatible loopback server: 400 when a tool call has no tool message (as the real API does). */
async function strictServer(): Promise<{ url: string; bodies: unknown[]; server: Server }> {
  const bodies: unknown[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(raw) as { messages: Record<string, unknown>[] };
      bodies.push(body);
      const problem = unpaired(body.messages);
      if (problem) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: problem, type: 'invalid_request_error' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'continuing' } }] })}\n\n`);
      response.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\n`);
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

/** The API's rule: the tool calls of an assistant message are each answered by the tool messages right after it. */
function unpaired(messages: Record<string, unknown>[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const calls = (messages[i]!.tool_calls as { id: string }[] | undefined) ?? [];
    const answered = new Set<unknown>();
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === 'tool'; j++) answered.add(messages[j]!.tool_call_id);
    for (const call of calls) {
      if (!answered.has(call.id)) {
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${call.id}`;
      }
    }
    if (
      messages[i]!.role === 'tool' &&
      (i === 0 || !['tool', 'assistant'].includes(String(messages[i - 1]!.role)))
    )
      return `Messages with role 'tool' must be a response to a preceding message with 'tool_calls'`;
  }
  return null;
}

describe('a crash while a plan awaits approval', () => {
  const child = join(import.meta.dirname, 'approval-child.mjs');
  let built = '';
  beforeAll(() => {
    built = copyDist();
  }, 180_000);
  afterAll(() => rmSync(dirname(built), { recursive: true, force: true }));

  /** Runs the child until it waits on the approval question, then sends `signal`. */
  function killWhileAsking(workspace: string, id: string, signal: NodeJS.Signals): Promise<string> {
    const proc = spawn(process.execPath, [child, built, workspace, id], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let asked = '';
    return new Promise((done, fail) => {
      proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^asked (\S+)$/m.exec(out);
        if (match && !asked) {
          asked = match[1]!;
          proc.kill(signal);
        }
      });
      proc.on('close', (code, got) => {
        if (got === signal && asked) done(asked);
        else fail(new Error(`child ended ${code ?? got} before the kill: ${out}\n${err}`));
      });
    });
  }

  it('on resume every call gets a result, and the API accepts the next request (SIGKILL and SIGHUP)', async () => {
    await measured(
      'hostile',
      'journal: crash while awaiting approval, then the OpenAI adapter',
      null,
      async () => {
        const { url, bodies, server } = await strictServer();
        try {
          for (const signal of ['SIGKILL', 'SIGHUP'] as const) {
            const workspace = tempDir('dsh-approval-crash-');
            const asked = await killWhileAsking(workspace, 'crashed', signal);
            const { ctx } = await setup({ workspace });
            ctx.tools.register(probe('look', true));
            ctx.tools.register(probe('change', false));
            const session = await ctx.sessions.resume('crashed');
            const events = session.events;
            const results = eventsOf(events, 'tool/result').map((e) => e.data);
            expect(results.map((r) => [r.name, r.isError])).toEqual([
              ['look', false],
              ['exit_plan_mode', true],
              ['change', true],
            ]);
            expect(results[1]).toMatchObject({ callId: asked });
            expect(results[1]!.content).toMatch(
              /ended while the call awaited approval \(it was not approved\)/,
            );
            expect(results[2]!.content).toMatch(
              /did not run: the agent process ended before the call was made/,
            );
            // The never-made call is logged as a call too, like a call cancelled before it ran.
            expect(eventsOf(events, 'tool/call').map((e) => e.data.name)).toEqual([
              'look',
              'exit_plan_mode',
              'change',
            ]);
            expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'error' } });
            expect(foldMode(events)).toBe('plan');
            const before = events.length;
            const model = openaiModel({ baseUrl: url, apiKey: 'test', maxRetries: 0 });
            const agent = ctx.agents.create({ session, model, options: {} });
            const outcome = await agent.prompt('go on');
            const end = eventsOf(session.events, 'turn/end').at(-1)!.data;
            expect(end.error, 'the API accepted the request').toBeUndefined();
            expect(outcome).toEqual({ reason: 'done', text: 'continuing' });
            // The request is what the log says: its messages are the transcript of the log before the answer.
            const sent = (bodies.at(-1) as { messages: Record<string, unknown>[] }).messages;
            const answer = session.events.findIndex((e, i) => i >= before && e.type === 'assistant/message');
            const replayed = toWireMessages('', buildTranscript(session.events.slice(0, answer)));
            expect(sent.slice(1)).toEqual(JSON.parse(JSON.stringify(replayed)));
            expect(unpaired(sent)).toBeNull();
            session.close();
            rmSync(workspace, { recursive: true, force: true });
          }
        } finally {
          server.close();
        }
        return { runs: 2, violations: 0, notes: 'SIGKILL and SIGHUP while exit_plan_mode awaits approval' };
      },
    );
  }, 300_000);

  it('a log an older version closed with a call unanswered is paired in the transcript', async () => {
    await measured('hostile', 'journal: legacy log with an unanswered call', null, async () => {
      const { url, server } = await strictServer();
      try {
        const { ctx, workspace } = await setup();
        ctx.tools.register(probe('change', false));
        const dir = join(workspace, '.dsh', 'sessions');
        mkdirSync(dir, { recursive: true });
        const calls = [
          { callId: 'call_1_1_1', name: 'exit_plan_mode', arguments: { plan: '# P' } },
          { callId: 'call_1_1_2', name: 'change', arguments: {} },
        ];
        const lines = [
          line(1, 'turn/start', { turn: 1 }),
          line(2, 'user/message', { text: 'plan it' }),
          line(3, 'assistant/message', { text: '', toolCalls: calls }),
          line(4, 'tool/call', calls[0]),
          line(5, 'approval/asked', { callId: 'call_1_1_1', toolName: 'exit_plan_mode' }),
          line(6, 'turn/end', { turn: 1, reason: 'error', error: 'interrupted: the process ended mid-turn' }),
        ];
        writeFileSync(join(dir, 'legacy.jsonl'), lines.join('\n') + '\n');
        const session = await ctx.sessions.resume('legacy');
        const transcript = buildTranscript(session.events);
        expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant']);
        const agent = ctx.agents.create({
          session,
          model: openaiModel({ baseUrl: url, apiKey: 'test', maxRetries: 0 }),
          options: {},
        });
        expect(await agent.prompt('go on')).toEqual({ reason: 'done', text: 'continuing' });
        const paired = buildTranscript(session.events);
        expect(paired.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user', 'assistant']);
        expect(paired[2]).toMatchObject({ callId: 'call_1_1_1', isError: true });
        session.close();
      } finally {
        server.close();
      }
      return { runs: 1, violations: 0 };
    });
  });
});

describe('files that are not journals', () => {
  it('refuses them untouched, lock released; an empty log and a torn first line of ours are journals', async () => {
    await measured(
      'hostile',
      'journal: files that are not journals are refused untouched',
      null,
      async () => {
        const { ctx, workspace } = await setup();
        const cases: [string, string][] = [
          ['VERSION', '0.1.0'],
          ['VERSION.jsonl', '0.1.0'],
          ['number.jsonl', '42\n'],
          ['other.jsonl', '{"a":1}\n{"b":2}\n'],
          ['first-not-turn.jsonl', line(1, 'user/message', { text: 'x' }) + '\n'],
          [
            'seq-0.jsonl',
            JSON.stringify({ seq: 0, type: 'turn/start', data: { turn: 1 }, time: TIME }) + '\n',
          ],
          ['one-json-line.jsonl', '{"name":"pkg","version":"1.0.0"}'],
          ['bom.jsonl', '\ufeff' + line(1, 'turn/start', { turn: 1 }) + '\n'],
          ['blank.jsonl', '   '],
          ['latin1.jsonl', 'caf\xe9'],
        ];
        for (const [name, text] of cases) {
          const file = join(workspace, name);
          writeFileSync(file, name === 'latin1.jsonl' ? Buffer.from(text, 'latin1') : text);
          const bytes = readFileSync(file);
          await expect(ctx.sessions.resume(`./${name}`), name).rejects.toThrow(
            name === 'VERSION'
              ? /not a session log \(a session log's name ends in \.jsonl\)/
              : /not a dsh-mode session journal/,
          );
          expect(readFileSync(file).equals(bytes), `${name} untouched`).toBe(true);
        }
        expect(readdirSync(workspace).filter((f) => f.endsWith('.lock'))).toEqual([]);
        // An empty log (created, never prompted) and a first line torn mid-write are ours.
        writeFileSync(join(workspace, 'empty.jsonl'), '');
        (await ctx.sessions.resume('./empty.jsonl')).close();
        writeFileSync(join(workspace, 'torn.jsonl'), '{"seq":1,"type":"turn/st');
        const torn = await ctx.sessions.resume('./torn.jsonl');
        expect(torn.events).toEqual([]);
        torn.close();
        expect(readFileSync(join(workspace, 'torn.jsonl'), 'utf8')).toBe('');
        return { runs: cases.length + 2, violations: 0, notes: cases.map(([n]) => n).join(', ') };
      },
    );
  });

  it('dsh-mode chat --resume ./VERSION refuses and leaves the file as it was', () => {
    const workspace = tempDir('dsh-resume-version-');
    writeFileSync(join(workspace, 'VERSION'), '0.1.0\n');
    writeFileSync(join(workspace, 'VERSION.jsonl'), '0.1.0\n');
    writeFileSync(join(workspace, 'script.json'), JSON.stringify([{ text: 'hi' }]));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.DEEPSEEK_API_KEY;
    for (const target of ['./VERSION', './VERSION.jsonl']) {
      const run = spawnSync(
        process.execPath,
        [
          resolve(import.meta.dirname, '../../bin/dsh-mode.mjs'),
          'chat',
          '--resume',
          target,
          '--prompt',
          'x',
          '--model-script',
          'script.json',
        ],
        { cwd: workspace, encoding: 'utf8', env },
      );
      expect(run.status, run.stdout + run.stderr).not.toBe(0);
      expect(run.stderr).toMatch(/not a (session log|dsh-mode session journal)/);
      expect(readFileSync(join(workspace, target), 'utf8')).toBe('0.1.0\n');
    }
  });
});

describe('symbolic links under .dsh', () => {
  it('refuses a linked log, a linked .dsh/sessions and a linked .dsh; nothing outside changes', async () => {
    await measured(
      'hostile',
      'journal: symbolic links for the log, .dsh/sessions and .dsh',
      null,
      async () => {
        const root = tempDir('dsh-journal-links-');
        const outside = join(root, 'outside');
        mkdirSync(outside);
        // A file outside the workspace that even looks like a journal: the link, not the content, is refused.
        const target = journal(outside, 'victim');
        const snapshot = (): string[] =>
          readdirSync(outside, { recursive: true })
            .map(String)
            .sort()
            .map((f) => {
              const path = join(outside, f);
              return `${f}:${lstatSync(path).isFile() ? readFileSync(path, 'utf8') : '(folder)'}`;
            });
        const before = snapshot();
        let runs = 0;

        // 1. `.dsh/sessions/<id>.jsonl` is a link: resume by id, by path (as ACP's session/load does), and read.
        const ws1 = join(root, 'ws1');
        mkdirSync(join(ws1, '.dsh', 'sessions'), { recursive: true });
        symlinkSync(target.file, join(ws1, '.dsh', 'sessions', 'linked.jsonl'));
        const one = await setup({ workspace: ws1 });
        for (const how of ['linked', join(ws1, '.dsh', 'sessions', 'linked.jsonl')]) {
          await expect(one.ctx.sessions.resume(how)).rejects.toThrow(/linked\.jsonl: it is a symbolic link/);
          runs++;
        }
        expect(() => one.ctx.sessions.read('linked')).toThrow(/symbolic link/);
        // A dangling link is refused as a link too, never created through.
        symlinkSync(join(outside, 'new.jsonl'), join(ws1, '.dsh', 'sessions', 'dangling.jsonl'));
        await expect(one.ctx.sessions.resume('dangling')).rejects.toThrow(/symbolic link/);
        expect(() => one.ctx.sessions.create({ id: 'dangling' })).toThrow(/already exists/);
        // A linked lock is never followed: taken over as stale (the link removed), its target untouched.
        writeFileSync(join(outside, 'pid'), `${process.pid}\n`);
        journal(ws1, 'locked');
        symlinkSync(join(outside, 'pid'), join(ws1, '.dsh', 'sessions', 'locked.lock'));
        (await one.ctx.sessions.resume('locked')).close();
        expect(readFileSync(join(outside, 'pid'), 'utf8')).toBe(`${process.pid}\n`);
        rmSync(join(outside, 'pid'));
        runs += 3;

        // 2. `.dsh/sessions` is a link, and 3. `.dsh` is a link: create, resume, list, fork are all refused.
        const ws2 = join(root, 'ws2');
        mkdirSync(join(ws2, '.dsh'), { recursive: true });
        symlinkSync(join(outside, '.dsh', 'sessions'), join(ws2, '.dsh', 'sessions'));
        const ws3 = join(root, 'ws3');
        mkdirSync(ws3);
        symlinkSync(join(outside, '.dsh'), join(ws3, '.dsh'));
        for (const [ws, link] of [
          [ws2, join(ws2, '.dsh', 'sessions')],
          [ws3, join(ws3, '.dsh')],
        ] as const) {
          const { ctx } = await setup({ workspace: ws });
          const message = new RegExp(
            `refusing the sessions folder ${link.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: it is a symbolic link`,
          );
          expect(() => ctx.sessions.create()).toThrow(message);
          expect(() => ctx.sessions.create({ id: 'victim' })).toThrow(message);
          await expect(ctx.sessions.resume('victim')).rejects.toThrow(message);
          await expect(ctx.sessions.resume(join(ws, '.dsh', 'sessions', 'victim.jsonl'))).rejects.toThrow(
            message,
          );
          expect(() => ctx.sessions.list()).toThrow(message);
          expect(() => ctx.sessions.read('victim')).toThrow(message);
          // An ACP session/new in this folder, from an agent whose own workspace is elsewhere.
          const { ctx: acp } = await setup();
          expect(() => acp.sessions.create({ dir: join(ws, '.dsh', 'sessions') })).toThrow(message);
          runs += 7;
        }
        expect(snapshot()).toEqual(before);
        // The link checks leave a real layout alone: a new session there works.
        const ok = await setup({ workspace: join(root, 'ws4') });
        ok.ctx.sessions.create({ id: 'fine' }).close();
        expect((await ok.ctx.sessions.resume('fine')).events).toEqual([]);
        return { runs, violations: 0 };
      },
    );
  });
  it('over ACP, session/load of a linked log and session/new under a linked .dsh answer with an error', async () => {
    await measured(
      'hostile',
      'journal: symbolic links over ACP (session/load, session/new)',
      null,
      async () => {
        const root = tempDir('dsh-journal-acp-links-');
        const outside = join(root, 'outside');
        mkdirSync(outside);
        const target = journal(outside, 'victim');
        const id = '20261130-000000-link';
        const ws = join(root, 'ws');
        mkdirSync(join(ws, '.dsh', 'sessions'), { recursive: true });
        symlinkSync(target.file, join(ws, '.dsh', 'sessions', `${id}.jsonl`));
        const ws2 = join(root, 'ws2');
        mkdirSync(ws2);
        mkdirSync(join(outside, 'elsewhere'));
        symlinkSync(join(outside, 'elsewhere'), join(ws2, '.dsh'));
        const client = new RawAcpClient(root, [{ text: 'hi' }]);
        try {
          await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
          const loaded = await client.request('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
          expect(loaded.error?.message, JSON.stringify(loaded)).toMatch(/symbolic link/);
          const created = await client.request('session/new', { cwd: ws2, mcpServers: [] });
          expect(JSON.stringify(created.error), JSON.stringify(created)).toMatch(/symbolic link/);
          expect(client.noise).toEqual([]);
        } finally {
          await client.close();
        }
        expect(readFileSync(target.file, 'utf8')).toBe(target.text);
        expect(readdirSync(join(outside, 'elsewhere'))).toEqual([]);
        return { runs: 2, violations: 0 };
      },
    );
  }, 120_000);
});

describe('invalid UTF-8 in a journal', () => {
  const E9 = Buffer.from([0xe9]);
  /** A journal whose line `at` (1-based) has a raw 0xE9 byte inside its text string. */
  function withRawByte(workspace: string, id: string, at: number, newlineAtEnd: boolean): string {
    const dir = join(workspace, '.dsh', 'sessions');
    mkdirSync(dir, { recursive: true });
    const lines = [
      line(1, 'turn/start', { turn: 1 }),
      line(2, 'user/message', { text: 'caf#' }),
      line(3, 'turn/end', { turn: 1, reason: 'done' }),
      line(4, 'turn/start', { turn: 2 }),
      line(5, 'user/message', { text: 'th#' }),
    ];
    const parts = lines.map((l, i) => {
      const bytes = Buffer.from(l);
      if (i + 1 !== at) return bytes;
      const hash = bytes.indexOf('#');
      return Buffer.concat([bytes.subarray(0, hash), E9, bytes.subarray(hash + 1)]);
    });
    const file = join(dir, `${id}.jsonl`);
    const joined: Buffer[] = [];
    parts.forEach((p, i) =>
      joined.push(p, ...(i < parts.length - 1 || newlineAtEnd ? [Buffer.from('\n')] : [])),
    );
    writeFileSync(file, Buffer.concat(joined));
    return file;
  }

  it('a damaged line in the middle or at the end is refused untouched; a torn tail is cut, never padded', async () => {
    await measured('hostile', 'journal: a raw 0xE9 byte inside a line', null, async () => {
      const { ctx, workspace } = await setup();
      // In the middle: refused, naming the line; the bytes stay as they were.
      const middle = withRawByte(workspace, 'middle', 2, true);
      const bytes = readFileSync(middle);
      await expect(ctx.sessions.resume('middle')).rejects.toThrow(
        /middle\.jsonl:2: invalid UTF-8 in the session journal/,
      );
      expect(readFileSync(middle).equals(bytes)).toBe(true);
      // A complete last line (its newline written) with the byte: damaged, refused the same way.
      const last = withRawByte(workspace, 'last', 5, true);
      const lastBytes = readFileSync(last);
      await expect(ctx.sessions.resume('last')).rejects.toThrow(/last\.jsonl:5: invalid UTF-8/);
      expect(readFileSync(last).equals(lastBytes)).toBe(true);
      // An unterminated last line with the byte is the torn tail: dropped, the file cut to the lines before it.
      const tail = withRawByte(workspace, 'tail', 5, false);
      const tailBytes = readFileSync(tail);
      const cut = tailBytes.lastIndexOf(0x0a) + 1;
      const session = await ctx.sessions.resume('tail');
      expect(session.events.map((e) => e.type)).toEqual([
        'turn/start',
        'user/message',
        'turn/end',
        'turn/start',
        'turn/end',
      ]);
      session.close();
      const after = readFileSync(tail);
      expect(after.subarray(0, cut).equals(tailBytes.subarray(0, cut))).toBe(true);
      expect(after.includes(0)).toBe(false);
      // The next resume works (it was refused before: the first had padded the file with NUL bytes).
      const again = await ctx.sessions.resume('tail');
      expect(again.events).toHaveLength(5);
      again.close();
      return { runs: 4, violations: 0 };
    });
  });

  it('resume of a journal followed by random bytes never grows it with padding, and a second resume agrees', async () => {
    const { ctx, workspace } = await setup({ plugin: false });
    const dir = join(workspace, '.dsh', 'sessions');
    mkdirSync(dir, { recursive: true });
    /** Three lines; the text of the second holds `inner` as raw bytes (valid UTF-8 or not). */
    const headWith = (inner: readonly number[]): Buffer => {
      const [before, after] = line(2, 'user/message', { text: 'h\u00e9llo #\u{1f600}' }).split('#');
      return Buffer.concat([
        Buffer.from(`${line(1, 'turn/start', { turn: 1 })}\n${before}`),
        Buffer.from([...inner]),
        Buffer.from(`${after}\n${line(3, 'turn/end', { turn: 1, reason: 'done' })}\n`),
      ]);
    };
    const tailBytes = fc.array(
      fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x0a, 0xe9, 0x22, 0x7b, 0xc3, 0x80, 0x61)),
      { maxLength: 60 },
    );
    let n = 0;
    await check(
      'hostile',
      'journal: random bytes inside a line and after the last, through two resumes',
      fc.asyncProperty(
        fc.oneof(
          fc.constant([]),
          fc.array(fc.constantFrom(0x61, 0xe9, 0xc3, 0xa9, 0x80, 0xff), { maxLength: 3 }),
        ),
        tailBytes,
        async (inner, tail) => {
          const id = `bytes-${++n}`;
          const file = join(dir, `${id}.jsonl`);
          const head = headWith(inner);
          const original = Buffer.concat([head, Buffer.from(tail)]);
          writeFileSync(file, original);
          let session;
          try {
            session = await ctx.sessions.resume(id);
          } catch (error) {
            // Refused: only for damage in a complete line, named by file:line, with the file as it was.
            expect((error as Error).message).toMatch(new RegExp(`${id}\\.jsonl:\\d+: `));
            expect(readFileSync(file).equals(original)).toBe(true);
            return;
          }
          const events = session.events.map((e) => JSON.stringify(e));
          expect(events).toHaveLength(3);
          session.close();
          // Resume only cuts (a torn tail) and may complete the last newline: the file is a prefix of what was
          // written, plus at most that newline; never longer, never padded.
          const after = readFileSync(file);
          const kept = after.at(-1) === 0x0a && !original.subarray(0, after.length).equals(after) ? 1 : 0;
          expect(after.length - kept).toBeGreaterThanOrEqual(head.length);
          expect(after.length - kept).toBeLessThanOrEqual(original.length);
          expect(
            original.subarray(0, after.length - kept).equals(after.subarray(0, after.length - kept)),
          ).toBe(true);
          const again = await ctx.sessions.resume(id);
          expect(again.events.map((e: SessionEvent) => JSON.stringify(e))).toEqual(events);
          again.close();
        },
      ),
      [200, 5_000],
      'a three-line journal with 0–3 raw bytes inside its second line, followed by up to 60 random bytes',
    );
  });
});
