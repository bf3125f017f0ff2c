/**
 * Invariant 1: the active mode is a pure fold of the session log. Real: the host's sessions (in memory and on disk
 * as JSONL), resume and fork; the fold itself is pure and needs no fakes.
 */
import { describe, expect, it } from 'vitest';
import { SURFACE_EVENT_TYPES, buildTranscript, type SessionEvent } from '../../src/host/index.js';
import { DEFAULT_MODE, foldMode, MALFORMED_MODE, ModeFoldCache, modeOfSet } from '../../src/engine/index.js';
import { agentOf, eventsOf, setup } from './setup.js';

let seq = 0;
const ev = (type: string, data: unknown = {}): SessionEvent =>
  ({ seq: ++seq, type, data, time: '2026-11-30T00:00:00.000Z' }) as SessionEvent;

describe('invariant 1: the active mode is a pure fold of the session log', () => {
  it('foldMode: the last mode/set wins, none means default', () => {
    expect(foldMode([])).toBe(DEFAULT_MODE);
    const events = [
      ev('turn/start', { turn: 1 }),
      ev('mode/set', { mode: 'plan' }),
      ev('mode/set', { mode: 'review' }),
    ];
    expect(foldMode(events)).toBe('review');
    expect(foldMode([events[0]!, events[1]!])).toBe('plan');
  });

  it('foldMode(events, end) folds only the first `end` events (the mode just before an event)', () => {
    const events = [
      ev('turn/start'),
      ev('mode/set', { mode: 'plan' }),
      ev('request/header'),
      ev('mode/set', { mode: 'default' }),
    ];
    expect(foldMode(events, 0)).toBe('default');
    expect(foldMode(events, 1)).toBe('default');
    expect(foldMode(events, 2)).toBe('plan');
    expect(foldMode(events, 3)).toBe('plan');
    expect(foldMode(events, 4)).toBe('default');
    expect(foldMode(events, 99)).toBe('default');
  });

  it('the cache folds lazily with a cursor: each read visits only the new events', () => {
    const events: SessionEvent[] = [ev('turn/start'), ev('mode/set', { mode: 'plan' })];
    const session = { events };
    const cache = new ModeFoldCache();
    expect(cache.read(session)).toEqual({ mode: 'plan', headerMode: undefined, cursor: 2 });
    events.push(ev('request/header'));
    expect(cache.read(session)).toEqual({ mode: 'plan', headerMode: 'plan', cursor: 3 });
    // An event the cursor has passed is never looked at again: rewriting history cannot change the fold.
    (events[1] as { data: unknown }).data = { mode: 'tampered' };
    events.push(ev('mode/set', { mode: 'default' }), ev('request/header-delta'));
    expect(cache.read(session)).toEqual({ mode: 'default', headerMode: 'default', cursor: 5 });
    expect(foldMode(events)).toBe('default');
  });

  it('the cache is per session (a WeakMap keyed by session)', () => {
    const cache = new ModeFoldCache();
    const a = { events: [ev('mode/set', { mode: 'plan' })] };
    const b = { events: [ev('turn/start')] };
    expect(cache.mode(a)).toBe('plan');
    expect(cache.mode(b)).toBe('default');
  });

  it('reads alternating between sessions keep each its own fold (the last-read shortcut never mixes them)', () => {
    const cache = new ModeFoldCache();
    const a = { events: [ev('mode/set', { mode: 'plan' })] };
    const b = { events: [ev('turn/start')] };
    for (let round = 0; round < 3; round++) {
      expect(cache.mode(a)).toBe('plan');
      expect(cache.mode(a)).toBe('plan');
      expect(cache.mode(b)).toBe('default');
    }
    b.events.push(ev('mode/set', { mode: 'review' }));
    expect(cache.mode(a)).toBe('plan');
    expect(cache.mode(b)).toBe('review');
    a.events.push(ev('mode/set', { mode: 'default' }));
    expect(cache.mode(b)).toBe('review');
    expect(cache.mode(a)).toBe('default');
    expect(cache.read(a).cursor).toBe(2);
    expect(cache.read(b).cursor).toBe(2);
  });

  it('a malformed mode/set (a hand-edited or corrupted log) folds to a mode no config defines, so it fails closed', async () => {
    for (const data of [null, {}, { mode: 3 }, 'plan']) expect(modeOfSet(data)).toBe(MALFORMED_MODE);
    expect(modeOfSet({ mode: 'plan' })).toBe('plan');
    const events = [ev('turn/start'), ev('mode/set', { mode: 42 })];
    expect(foldMode(events)).toBe(MALFORMED_MODE);
    expect(new ModeFoldCache().mode({ events })).toBe(MALFORMED_MODE);
    const { ctx } = await setup();
    const session = { events } as unknown as Parameters<typeof ctx.modes.get>[0]['session'];
    expect(ctx.modes.get({ session })).toEqual({ current: MALFORMED_MODE, defined: false });
  });

  it('mode/set is log-only and non-surface: it never reaches the model transcript', async () => {
    expect(SURFACE_EVENT_TYPES.has('mode/set')).toBe(false);
    const { ctx } = await setup();
    const { agent, model } = agentOf(ctx, [{ text: 'ok' }], { mode: 'plan' });
    await agent.prompt('hello');
    expect(eventsOf(agent.session.events, 'mode/set')).toHaveLength(1);
    expect(buildTranscript(agent.session.events)).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'ok', toolCalls: [] },
    ]);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('mode/set');
  });

  it('resume from the JSONL file and a fork both restore plan mode; their first header is plan-shaped', async () => {
    const { ctx } = await setup();
    const session = ctx.sessions.create();
    const first = agentOf(ctx, [{ text: 'planning' }], { mode: 'plan' }, session);
    await first.agent.prompt('plan something');
    const planHeader = eventsOf(session.events, 'request/header')[0]!.data.header;
    expect(planHeader.tools.map((tool) => tool.name)).not.toContain('write');
    session.close();

    const resumed = await ctx.sessions.resume(session.id);
    expect(ctx.modes.get({ session: resumed })).toEqual({ current: 'plan', defined: true });
    const again = agentOf(ctx, [{ text: 'still planning' }], {}, resumed);
    await again.agent.prompt('continue');
    const headers = eventsOf(resumed.events, 'request/header');
    expect(headers.at(-1)!.data).toEqual({ header: planHeader, reason: 'resume' });
    expect(again.model.requests[0]!.header).toEqual(planHeader);
    // No extra mechanism: nothing was appended to restore the mode.
    expect(eventsOf(resumed.events, 'mode/set')).toHaveLength(1);
    resumed.close();

    const fork = ctx.sessions.fork(session.id, undefined, { inMemory: true });
    const forked = agentOf(ctx, [{ text: 'forked' }], {}, fork);
    await forked.agent.prompt('fork');
    expect(ctx.modes.get(forked.agent).current).toBe('plan');
    expect(forked.model.requests[0]!.header).toEqual(planHeader);
    expect(eventsOf(fork.events, 'request/header').at(-1)!.data.reason).toBe('resume');
  });
});
