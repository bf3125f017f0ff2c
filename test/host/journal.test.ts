/**
 * The session journal on real files in a temporary folder, with the real cordis Context: enclosure, the
 * `session/event` waterfall (containment, re-entrant appends), resume (torn tail, malformed lines, a turn left
 * open), fork boundaries, the lock (same process and another process), and in-memory sessions.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newId, parseJournal, type Session, type SessionEvent } from '../../src/host/index.js';
import { setup } from './setup.js';

async function oneTurn(session: Session, text: string, turn = 1): Promise<void> {
  await session.append('turn/start', { turn });
  await session.append('user/message', { text });
  await session.append('turn/end', { turn, reason: 'done' });
}

describe('newId()', () => {
  it('is the time to the second, then six random hex digits; ids made in the same second differ', () => {
    const at = new Date('2026-11-30T06:45:01.234Z');
    const ids = Array.from({ length: 2000 }, () => newId(at));
    for (const id of ids) expect(id).toMatch(/^20261130-064501-[0-9a-f]{6}$/);
    // 2,000 draws from 16.7 million: a repeat is a one-in-eight-thousand event, not a property of the code.
    expect(new Set(ids).size).toBeGreaterThan(1990);
    // Every digit position varies (the UUID's version digit, always 4, is not among them).
    for (let k = 16; k < 22; k++) expect(new Set(ids.map((id) => id[k])).size).toBeGreaterThan(8);
  });

  it('pads the year to four digits and every other field to two', () => {
    expect(newId(new Date('2027-01-05T03:04:09.999Z'))).toMatch(/^20270105-030409-[0-9a-f]{6}$/);
    expect(newId(new Date('0999-12-31T23:59:59Z'))).toMatch(/^09991231-235959-[0-9a-f]{6}$/);
  });
});

describe('ctx.sessions.create()', () => {
  it('writes one JSON line per event under .dsh/sessions/<id>.jsonl, seq from 1', async () => {
    const { ctx, workspace } = await setup();
    const session = ctx.sessions.create({ id: 'first' });
    expect(session.file).toBe(join(workspace, '.dsh', 'sessions', 'first.jsonl'));
    await oneTurn(session, 'hello');
    const lines = readFileSync(session.file!, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((event: SessionEvent) => [event.seq, event.type])).toEqual([
      [1, 'turn/start'],
      [2, 'user/message'],
      [3, 'turn/end'],
    ]);
    expect(typeof lines[0].time).toBe('string');
    session.close();
  });

  it('refuses events outside an open turn and a turn/start inside one', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ inMemory: true });
    await expect(session.append('user/message', { text: 'x' })).rejects.toThrow(/outside an open turn/);
    await session.append('turn/start', { turn: 1 });
    await expect(session.append('turn/start', { turn: 2 })).rejects.toThrow(/while a turn is open/);
    await session.append('turn/end', { turn: 1, reason: 'done' });
    expect(session.turnOpen).toBe(false);
    expect(session.events).toHaveLength(2);
  });

  it('keeps in-memory sessions off disk (file null)', async () => {
    const { ctx, workspace } = await setup();
    const session = ctx.sessions.create({ inMemory: true });
    await oneTurn(session, 'x');
    expect(session.file).toBeNull();
    expect(existsSync(join(workspace, '.dsh'))).toBe(false);
  });

  it('lists the session ids of the folder, logs only', async () => {
    const { ctx } = await setup();
    expect(ctx.sessions.list()).toEqual([]);
    const b = ctx.sessions.create({ id: 'b' });
    const a = ctx.sessions.create({ id: 'a' });
    expect(ctx.sessions.list()).toEqual(['a', 'b']);
    a.close();
    b.close();
  });

  it('rejects ids that could name a path', async () => {
    const { ctx } = await setup();
    expect(() => ctx.sessions.create({ id: '../escape' })).toThrow(/invalid session id/);
  });
});

describe('session/event', () => {
  it('runs after each append; a listener may append re-entrantly right after the event', async () => {
    const { ctx } = await setup();
    ctx.on('session/event', async (session, event, next) => {
      await next();
      if (event.type === 'turn/start') await session.append('context/message', { text: 'landed' });
    });
    const session = ctx.sessions.create({ inMemory: true });
    await oneTurn(session, 'hi');
    expect(session.events.map((event) => event.type)).toEqual([
      'turn/start',
      'context/message',
      'user/message',
      'turn/end',
    ]);
  });

  it('contains a throwing listener: the append and the other listeners still run', async () => {
    const { ctx, warnings } = await setup();
    const seen: string[] = [];
    ctx.on('session/event', () => {
      throw new Error('boom before next');
    });
    ctx.on('session/event', async (_session, _event, next) => {
      await next();
      throw new Error('boom after next');
    });
    ctx.on('session/event', async (_session, event, next) => {
      seen.push(event.type);
      await next();
    });
    const session = ctx.sessions.create({ inMemory: true });
    await oneTurn(session, 'hi');
    expect(seen).toEqual(['turn/start', 'user/message', 'turn/end']);
    expect(warnings.some((w) => w.includes('boom before next'))).toBe(true);
    expect(warnings.some((w) => w.includes('boom after next'))).toBe(true);
  });
});

describe('ctx.sessions.resume()', () => {
  it('reloads a session by id and continues its seq', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 's1' });
    await oneTurn(session, 'one');
    session.close();
    const again = await ctx.sessions.resume('s1');
    expect(again.resumed).toBe(true);
    expect(again.events).toHaveLength(3);
    await oneTurn(again, 'two', 2);
    expect(again.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    again.close();
    expect(ctx.sessions.read('s1')).toHaveLength(6);
  });

  it('drops a torn last line with a warning, keeps the rest, and appends cleanly after it', async () => {
    const { ctx, warnings } = await setup();
    const session = ctx.sessions.create({ id: 'torn' });
    await oneTurn(session, 'kept');
    session.close();
    appendFileSync(session.file!, '{"seq":4,"type":"turn/st');
    const again = await ctx.sessions.resume('torn');
    expect(again.events).toHaveLength(3);
    expect(warnings.some((w) => w.includes('torn.jsonl:4') && w.includes('torn last line'))).toBe(true);
    await oneTurn(again, 'after', 2);
    again.close();
    expect(ctx.sessions.read('torn').map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('names file:line for a malformed line that is not the last', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 'bad' });
    await oneTurn(session, 'x');
    session.close();
    const lines = readFileSync(session.file!, 'utf8').split('\n');
    lines[1] = '{not json';
    writeFileSync(session.file!, lines.join('\n'));
    await expect(ctx.sessions.resume('bad')).rejects.toThrow(/bad\.jsonl:2: malformed journal line/);
    // The failed resume released its lock.
    writeFileSync(
      session.file!,
      readFileSync(session.file!, 'utf8').replace(
        '{not json',
        JSON.stringify({ seq: 2, type: 'user/message', data: { text: 'x' }, time: 't' }),
      ),
    );
    (await ctx.sessions.resume('bad')).close();
  });

  it('keeps a complete last line written without its newline, and appends after it', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 'nonl' });
    await oneTurn(session, 'x');
    session.close();
    writeFileSync(session.file!, readFileSync(session.file!, 'utf8').trimEnd());
    const again = await ctx.sessions.resume('nonl');
    expect(again.events).toHaveLength(3);
    await oneTurn(again, 'y', 2);
    again.close();
    expect(ctx.sessions.read('nonl')).toHaveLength(6);
  });

  it('names file:line for an empty line inside the log', () => {
    expect(() =>
      parseJournal('{"seq":1,"type":"turn/start","data":{"turn":1},"time":"t"}\n\n{}\n', 'x.jsonl'),
    ).toThrow('x.jsonl:2: empty line in the session journal');
    expect(() => parseJournal('[1]\n', 'y.jsonl')).toThrow(
      /^y\.jsonl:1: not a dsh-mode session journal \(a journal line must be a JSON object/,
    );
  });

  it('names file:line for a seq that breaks the sequence', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 'gap' });
    await oneTurn(session, 'x');
    session.close();
    const lines = readFileSync(session.file!, 'utf8').split('\n');
    lines.splice(1, 1);
    writeFileSync(session.file!, lines.join('\n'));
    await expect(ctx.sessions.resume('gap')).rejects.toThrow(/gap\.jsonl:2: expected seq 2, found 3/);
  });

  it('closes a turn that a dead process left open, as interrupted', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 'open' });
    await session.append('turn/start', { turn: 1 });
    await session.append('user/message', { text: 'x' });
    session.close();
    const again = await ctx.sessions.resume('open');
    expect(again.events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: 'error' } });
    expect(again.turnOpen).toBe(false);
    again.close();
  });

  it('reports a missing session clearly', async () => {
    const { ctx } = await setup();
    await expect(ctx.sessions.resume('nope')).rejects.toThrow(/no session journal at .*nope\.jsonl/);
  });
});

describe('the lock', () => {
  it('refuses a second writer in the same process, and frees the session on close', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create({ id: 'locked' });
    await expect(ctx.sessions.resume('locked')).rejects.toThrow(/in use by this process/);
    session.close();
    (await ctx.sessions.resume('locked')).close();
  });

  it('refuses a writer while another live process holds the lock, and takes over a stale one', async () => {
    const { ctx, warnings } = await setup();
    const session = ctx.sessions.create({ id: 'shared' });
    await oneTurn(session, 'x');
    session.close();
    const lock = session.file!.replace(/\.jsonl$/, '.lock');
    // A live child process stands in for another writer holding the lock.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(lock, `${holder.pid}\n`);
      await expect(ctx.sessions.resume('shared')).rejects.toThrow(
        new RegExp(`in use by process ${holder.pid}`),
      );
    } finally {
      holder.kill('SIGKILL');
    }
    // A pid that cannot be alive: the lock is stale.
    writeFileSync(lock, '2147483646\n');
    const again = await ctx.sessions.resume('shared');
    expect(warnings.some((w) => w.includes('stale lock'))).toBe(true);
    again.close();
    expect(existsSync(lock)).toBe(false);
  });
});

describe('ctx.sessions.fork()', () => {
  it('seeds a new session with a prefix that ends on turn/end', async () => {
    const { ctx } = await setup();
    const source = ctx.sessions.create({ id: 'src' });
    await oneTurn(source, 'one');
    await oneTurn(source, 'two', 2);
    const fork = ctx.sessions.fork(source, 3, { id: 'child' });
    expect(fork.events.map((event) => event.type)).toEqual(['turn/start', 'user/message', 'turn/end']);
    expect(fork.resumed).toBe(true);
    await oneTurn(fork, 'three', 2);
    fork.close();
    source.close();
    expect(ctx.sessions.read('child')).toHaveLength(6);
    expect(ctx.sessions.read('src')).toHaveLength(6);
  });

  it('refuses a boundary inside a turn, and one past the end', async () => {
    const { ctx } = await setup();
    const source = ctx.sessions.create({ inMemory: true });
    await oneTurn(source, 'one');
    expect(() => ctx.sessions.fork(source, 2, { inMemory: true })).toThrow(/must end on a turn\/end/);
    expect(() => ctx.sessions.fork(source, 9, { inMemory: true })).toThrow(/has 3 events/);
  });

  it('forks a session file by id without taking its lock', async () => {
    const { ctx } = await setup();
    const source = ctx.sessions.create({ id: 'live' });
    await oneTurn(source, 'one');
    const fork = ctx.sessions.fork('live', undefined, { inMemory: true });
    expect(fork.events).toHaveLength(3);
    source.close();
  });
});
