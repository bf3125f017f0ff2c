/**
 * Typed seams: a malformed `mode/set` fails closed wherever it is read (here: the ACP app, which used to cast the
 * payload and announce `42` as the current mode), `switch (event.type)` narrows `event.data`, and the host's
 * contained listeners are registered and disposed through cordis's public API. Real: a started deployment (host,
 * mode plugin, scripted model), the ACP agent app from the real SDK over in-memory message streams, cordis fibers.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { Context } from 'cordis';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createAcpAgent } from '../../src/apps/acp/agent-app.js';
import { planDeployment, startDeployment } from '../../src/apps/deployment.js';
import { MALFORMED_MODE } from '../../src/engine/fold.js';
import { applyHost } from '../../src/host/host.js';
import type { Session, SessionEvent, SessionEventMap } from '../../src/host/types.js';
import { tempDir } from '../engine/setup.js';
import { measured } from './config.js';

type Message = Record<string, unknown> & { id?: number; method?: string; params?: Record<string, unknown> };

/** An in-process ACP client: raw JSON-RPC messages both ways, on the streams the SDK's `connect` takes. */
function connectClient(app: acp.AgentApp): {
  request(method: string, params: unknown): Promise<Message>;
  received: Message[];
  close(): Promise<void>;
} {
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const fromAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const connection = app.connect({ readable: toAgent.readable, writable: fromAgent.writable });
  const writer = toAgent.writable.getWriter();
  const received: Message[] = [];
  const waiting = new Map<number, (m: Message) => void>();
  void (async () => {
    for await (const message of fromAgent.readable as unknown as AsyncIterable<Message>) {
      received.push(message);
      if (typeof message.id === 'number' && message.method === undefined) waiting.get(message.id)?.(message);
    }
  })();
  let next = 1;
  return {
    received,
    request(method, params) {
      const id = next++;
      const answer = new Promise<Message>((resolve) => waiting.set(id, resolve));
      void writer.write({ jsonrpc: '2.0', id, method, params } as acp.AnyMessage);
      return answer;
    },
    async close() {
      await writer.close();
      await connection.closed;
    },
  };
}

describe('a malformed mode/set fails closed wherever it is read', () => {
  it('ACP announces the malformed mode, never its raw payload, and the session denies writes', async () => {
    await measured('hostile', 'typed seams: a live malformed mode/set over ACP', null, async () => {
      const workspace = tempDir('dsh-typed-seams-');
      const script = join(workspace, 'script.json');
      writeFileSync(
        script,
        JSON.stringify([
          { tool_calls: [{ name: 'write', arguments: { path: 'pwned.txt', content: 'x' } }] },
          { text: 'done' },
        ]),
      );
      const runtime = await startDeployment(planDeployment({ cwd: workspace }), {
        workspace,
        modelScript: script,
        log: () => {},
        notice: () => {},
        cwd: workspace,
      });
      // A plugin written in plain JS (or an older version) logs a payload the types do not allow.
      await runtime.ctx.plugin({
        name: 'foreign',
        apply(ctx: Context) {
          ctx.on(
            'session/event',
            async (session: Session, event: SessionEvent, next: () => Promise<void>) => {
              await next();
              if (event.type === 'turn/start') await session.append('mode/set', { mode: 42 } as never);
            },
          );
        },
      });
      const agent = createAcpAgent(runtime, '0.0.0-test');
      const client = connectClient(agent.app);
      try {
        await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const created = await client.request('session/new', { cwd: workspace, mcpServers: [] });
        const sessionId = (created.result as { sessionId: string }).sessionId;
        const prompt = await client.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'write it' }],
        });
        expect(prompt.error, JSON.stringify(prompt.error)).toBeUndefined();
        const announced = client.received
          .filter((m) => m.method === 'session/update')
          .map((m) => (m.params as { update: { sessionUpdate: string; currentModeId?: unknown } }).update)
          .filter((u) => u.sessionUpdate === 'current_mode_update')
          .map((u) => u.currentModeId);
        expect(announced).toEqual([MALFORMED_MODE]);
        expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
        expect(runtime.modes).toBeDefined();
      } finally {
        await client.close();
        agent.dispose();
        await runtime.dispose();
      }
      return { runs: 1, violations: 0, notes: 'a plugin appends mode/set {mode: 42} after turn/start' };
    });
  });
});

describe('SessionEvent is a union discriminated by type', () => {
  it('narrows data in a switch, with no cast', () => {
    const text = (event: SessionEvent): string => {
      switch (event.type) {
        case 'tool/result':
          expectTypeOf(event.data).toEqualTypeOf<SessionEventMap['tool/result']>();
          return event.data.content;
        case 'mode/set':
          expectTypeOf(event.data).toEqualTypeOf<{ mode: string }>();
          return event.data.mode;
        default:
          return '';
      }
    };
    const time = '2026-12-01T00:00:00.000Z';
    expect(
      text({
        seq: 1,
        type: 'tool/result',
        data: { callId: 'c', name: 'read', content: 'hi', isError: false },
        time,
      }),
    ).toBe('hi');
    expect(text({ seq: 2, type: 'mode/set', data: { mode: 'plan' }, time })).toBe('plan');
    // @ts-expect-error a payload of another event type is not a `user/message`
    const wrong: SessionEvent = { seq: 3, type: 'user/message', data: { mode: 'plan' }, time };
    expect(wrong.type).toBe('user/message');
  });
});

describe('contained listeners go through cordis public API', () => {
  it('ctx.on registers a session/event listener as an effect of its plugin, and disposing it stops the calls', async () => {
    const ctx = new Context();
    await applyHost(ctx, { workspace: tempDir('dsh-typed-seams-'), builtinTools: false });
    const seen: string[] = [];
    const fiber = ctx.plugin({
      name: 'watcher',
      apply(plugin: Context) {
        plugin.on('session/event', async (_s: Session, event: SessionEvent, next: () => Promise<void>) => {
          seen.push(`late ${event.type}`);
          return next();
        });
        plugin.on(
          'session/event',
          async (_s: Session, event: SessionEvent, next: () => Promise<void>) => {
            seen.push(`first ${event.type}`);
            return next();
          },
          { prepend: true },
        );
        plugin.on('session/event', () => {
          throw new Error('a buggy listener');
        });
      },
    });
    await fiber;
    // The host registers each one, wrapped, under its own symbol (src/host/contain.ts).
    expect(fiber.getEffects().map((e) => e.label)).toEqual([
      'ctx.on(Symbol(session/event))',
      'ctx.on(Symbol(session/event))',
      'ctx.on(Symbol(session/event))',
    ]);
    const session = ctx.sessions.create({ inMemory: true });
    await session.append('turn/start', { turn: 1 });
    expect(seen).toEqual(['first turn/start', 'late turn/start']);
    await fiber.dispose();
    await session.append('user/message', { text: 'hi' });
    expect(seen).toEqual(['first turn/start', 'late turn/start']);
    expect(session.events.map((e) => e.type)).toEqual(['turn/start', 'user/message']);
  });
});
