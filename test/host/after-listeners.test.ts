/**
 * The `after` option of a contained `session/event` listener (`src/host/contain.ts`): the listener is called only
 * once the waterfall has settled, only for the events its predicate accepts (asked at that moment), contained,
 * and it goes away with its plugin. Real: a cordis Context with the host applied, in-memory sessions, real
 * listeners registered through `ctx.on`.
 */
import { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { applyHost } from '../../src/host/host.js';
import type { Session, SessionEvent } from '../../src/host/types.js';
import { tempDir } from '../engine/setup.js';

async function host() {
  const ctx = new Context();
  await applyHost(ctx, { workspace: tempDir('dsh-after-'), builtinTools: false });
  return ctx;
}

describe('session/event listeners registered with `after`', () => {
  it('are asked after every other listener settled, and called only for what they accept', async () => {
    const ctx = await host();
    const log: string[] = [];
    let wanted = false;
    const fiber = ctx.plugin({
      name: 'after-watcher',
      apply(plugin: Context) {
        plugin.on(
          'session/event',
          async (_s: Session, event: SessionEvent, next: () => Promise<void>) => {
            await next();
            log.push(`after ${event.type}`);
          },
          {
            prepend: true,
            after: (_s: Session, event: SessionEvent) => {
              log.push(`asked ${event.type}`);
              return wanted && event.type === 'user/message';
            },
          },
        );
      },
    });
    await fiber;
    // A plain listener that is still busy when the predicate would have said no: it changes the answer.
    ctx.on('session/event', async (_s: Session, event: SessionEvent, next: () => Promise<void>) => {
      await next();
      await new Promise((resolve) => setTimeout(resolve, 2));
      log.push(`plain ${event.type}`);
      if (event.type === 'user/message') wanted = true;
    });
    const session = ctx.sessions.create({ inMemory: true });
    await session.append('turn/start', { turn: 1 });
    await session.append('user/message', { text: 'hi' });
    expect(log).toEqual([
      'plain turn/start',
      'asked turn/start',
      'plain user/message',
      'asked user/message',
      'after user/message',
    ]);
    await fiber.dispose();
    log.length = 0;
    await session.append('user/message', { text: 'again' });
    expect(log).toEqual(['plain user/message']);
  });

  it('contain a throwing listener and a throwing predicate: the append and the others still run', async () => {
    const ctx = await host();
    const calls: string[] = [];
    ctx.on(
      'session/event',
      async () => {
        throw new Error('a buggy after listener');
      },
      { after: () => true },
    );
    ctx.on('session/event', async () => {}, {
      after: () => {
        throw new Error('a buggy predicate');
      },
    });
    ctx.on(
      'session/event',
      async (_s: Session, event: SessionEvent, next: () => Promise<void>) => {
        await next();
        calls.push(event.type);
      },
      { after: () => true },
    );
    const session = ctx.sessions.create({ inMemory: true });
    await expect(session.append('turn/start', { turn: 1 })).resolves.toMatchObject({ seq: 1 });
    expect(calls).toEqual(['turn/start']);
  });

  it('refuses an `after` that is not a function', async () => {
    const ctx = await host();
    expect(() =>
      ctx.on('session/event', async () => {}, { after: 'yes' as unknown as () => boolean }),
    ).toThrow('the `after` option must be a function');
  });

  it('refuses `after` on the contained emits, which would never call it', async () => {
    const ctx = await host();
    for (const name of ['agent/created', 'tools/verdict'] as const)
      expect(() => ctx.on(name, () => {}, { after: () => true })).toThrow(
        `ctx.on("${name}"): the \`after\` option is for session/event only`,
      );
  });
});
