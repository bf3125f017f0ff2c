/**
 * Item 1, session logs: random logs (valid turns, unknown event types, `mode/set` with wrong payloads, torn last
 * lines, damage in the middle, huge logs and huge lines) written as real JSONL files and resumed by the real
 * `ctx.sessions.resume()` with the real engine loaded. Resume either succeeds or refuses with an error naming
 * `file:line` (never a TypeError); a resumed log is the written prefix with contiguous `seq`; the engine's mode
 * equals an independent fold of it; and a probe tool runs on the resumed session only where that mode allows it
 * (a malformed `mode/set` fails closed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldMode, MALFORMED_MODE } from '../../src/engine/index.js';
import { parseJournal, type Tool } from '../../src/host/index.js';
import { agentOf, setup } from '../engine/setup.js';
import { check, measured, rng, scale, seedOf } from './config.js';

/** The independent fold: the last `mode/set` whose `mode` is a string; a malformed one is no mode at all. */
export function referenceFold(events: readonly { type: string; data: unknown }[]): string {
  let mode = 'default';
  for (const event of events) {
    if (event.type !== 'mode/set') continue;
    const m = (event.data as { mode?: unknown } | null)?.mode;
    mode = typeof m === 'string' ? m : MALFORMED_MODE;
  }
  return mode;
}

const modePayload = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('default', 'plan').map((mode) => ({ mode })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      { mode: 42 },
      {},
      { mode: null },
      { mode: ['plan'] },
      { mode: '' },
      { mode: '__proto__' },
      { mode: 'constructor' },
      { mode: 'PLAN' },
      { mode: 'review' },
    ),
  },
);

const eventBody = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ type: fc.constant('user/message'), data: fc.record({ text: fc.string() }) }),
  },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('mode/set'), data: modePayload }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constantFrom('x/unknown', 'mode/get', 'Mode/Set', 'mode/set '),
      data: fc.object({ maxDepth: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('context/message'), data: fc.record({ text: fc.string() }) }),
  },
);

/** Turns of events with seq and time, as the host writes them. */
const logArb = fc
  .array(fc.tuple(fc.array(eventBody, { maxLength: 6 }), fc.boolean()), { minLength: 1, maxLength: 6 })
  .map((turns) => {
    const events: { seq: number; type: string; data: unknown; time: string }[] = [];
    const push = (type: string, data: unknown) =>
      events.push({ seq: events.length + 1, type, data, time: '2026-11-30T00:00:00.000Z' });
    turns.forEach(([body, closed], i) => {
      push('turn/start', { turn: i + 1 });
      for (const e of body) push(e.type, e.data);
      if (closed || i < turns.length - 1) push('turn/end', { turn: i + 1, reason: 'done' });
    });
    return events;
  });

type Damage =
  { kind: 'none' } | { kind: 'torn'; cut: number } | { kind: 'middle'; line: number; text: string };
const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  fc.constant<Damage>({ kind: 'none' }),
  fc.nat().map<Damage>((cut) => ({ kind: 'torn', cut })),
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom(
        '',
        'not json',
        '{"seq":1}',
        'null',
        '[]',
        '{"seq":999,"type":"x","data":{},"time":""}',
        '{"seq":2,"type":"mode/set","data":null,"time":"t"}',
      ),
    )
    .map<Damage>(([line, text]) => ({ kind: 'middle', line, text })),
);

function render(events: readonly object[], damage: Damage): { text: string; intact: number } {
  const lines = events.map((e) => JSON.stringify(e));
  if (damage.kind === 'torn') {
    const last = lines.pop()!;
    // Cut inside the last line: at least one byte gone, so it never parses as a whole object.
    const cut = damage.cut % last.length;
    return { text: lines.map((l) => l + '\n').join('') + last.slice(0, cut), intact: lines.length };
  }
  if (damage.kind === 'middle') {
    const at = damage.line % (lines.length + 1);
    lines.splice(at, 0, damage.text);
    return { text: lines.join('\n') + '\n', intact: at };
  }
  return { text: lines.join('\n') + '\n', intact: lines.length };
}

const probe = (ran: string[]): Tool => ({
  name: 'probe',
  description: 'a probe that records every run',
  parameters: { type: 'object' },
  execute: (_args, context) => (ran.push(context.callId), { content: 'ran' }),
});

describe('fuzz: session logs', () => {
  it('resume never crashes; a resumed log is the valid prefix; the mode fails closed on malformed mode/set', async () => {
    const { ctx, workspace } = await setup();
    const ran: string[] = [];
    ctx.tools.register(probe(ran));
    const dir = join(workspace, '.dsh', 'sessions');
    mkdirSync(dir, { recursive: true });
    let n = 0;
    await check(
      'fuzz',
      'journal: random logs resume or refuse with file:line; mode == reference fold',
      fc.asyncProperty(logArb, damageArb, async (events, damage) => {
        const id = `fuzz-${++n}`;
        const file = join(dir, `${id}.jsonl`);
        const { text, intact } = render(events, damage);
        writeFileSync(file, text);
        let session;
        try {
          session = await ctx.sessions.resume(id);
        } catch (error) {
          // Refusal is allowed only for damage in the middle, and must name the file and line.
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).constructor).toBe(Error);
          expect(damage.kind, (error as Error).message).toBe('middle');
          expect((error as Error).message).toMatch(new RegExp(`${id}\\.jsonl:\\d+: `));
          return;
        }
        const got = session.events;
        got.forEach((e, i) => expect(e.seq).toBe(i + 1));
        // Every intact line before the damage survives as written.
        expect(got.slice(0, intact).map((e) => JSON.stringify(e))).toEqual(
          events.slice(0, intact).map((e) => JSON.stringify(e)),
        );
        // Fork at every turn/end: the fork's mode is the fold of that prefix, with no extra mechanism.
        got.forEach((e, i) => {
          if (e.type !== 'turn/end') return;
          const fork = ctx.sessions.fork(session!, e.seq, { inMemory: true });
          expect(ctx.modes.get({ session: fork }).current).toBe(referenceFold(got.slice(0, i + 1)));
        });
        const mode = referenceFold(got);
        expect(foldMode(got)).toBe(mode);
        const { agent } = agentOf(ctx, [{ tool_calls: [{ name: 'probe' }] }, { text: 'done' }], {}, session);
        expect(ctx.modes.get(agent).current).toBe(mode);
        expect(ctx.modes.get(agent).defined).toBe(mode === 'default' || mode === 'plan');
        const before = ran.length;
        await agent.prompt('go');
        // probe is neither read-only nor named by plan: only the default mode runs it.
        expect(ran.length - before, `mode ${mode}`).toBe(mode === 'default' ? 1 : 0);
        session.close();
      }),
      [40, 3_000],
      'turns of user/context messages, mode/set with 11 payload shapes, unknown types; torn tails, bad middle lines; a fork at every turn/end',
    );
  });

  it('parseJournal on random text returns or throws file:line, never anything else', async () => {
    await check(
      'fuzz',
      'journal: parseJournal on garbage',
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 300 }),
          fc
            .array(
              fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
              { maxLength: 5 },
            )
            .map((l) => l.join('\n')),
        ),
        (text) => {
          try {
            const read = parseJournal(text, 'g.jsonl');
            read.events.forEach((e, i) => expect(e.seq).toBe(i + 1));
          } catch (error) {
            expect((error as Error).message).toMatch(/^g\.jsonl:\d+: /);
          }
        },
      ),
      [250, 50_000],
      'binary strings and lines of random JSON values',
    );
  });

  it('a huge log and a huge line resume, and the fold agrees with the reference', async () => {
    const seed = seedOf('journal: huge log');
    const events = scale(20_000, 400_000);
    await measured('fuzz', 'journal: huge log (events) and 10 MB line', seed, async () => {
      const random = rng(seed);
      const { ctx, workspace } = await setup();
      const dir = join(workspace, '.dsh', 'sessions');
      mkdirSync(dir, { recursive: true });
      const lines: string[] = [];
      let seq = 0;
      const line = (type: string, data: unknown) =>
        lines.push(JSON.stringify({ seq: ++seq, type, data, time: '2026-11-30T00:00:00.000Z' }));
      let turn = 0;
      while (seq < events) {
        line('turn/start', { turn: ++turn });
        for (let i = 0; i < 8; i++) {
          const r = random();
          if (r < 0.1) line('mode/set', { mode: r < 0.03 ? 7 : r < 0.06 ? 'plan' : 'default' });
          else line('user/message', { text: 'x'.repeat(Math.floor(random() * 40)) });
        }
        line('turn/end', { turn, reason: 'done' });
      }
      line('turn/start', { turn: ++turn });
      line('user/message', { text: 'y'.repeat(10 * 1024 * 1024) });
      line('mode/set', { mode: 'plan' });
      writeFileSync(join(dir, 'huge.jsonl'), lines.join('\n') + '\n');
      const session = await ctx.sessions.resume('huge');
      expect(session.events.length).toBe(seq + 1); // plus the turn/end that closes the open turn
      expect(foldMode(session.events)).toBe(referenceFold(session.events));
      expect(ctx.modes.get({ session }).current).toBe('plan');
      session.close();
      return { runs: 1, violations: 0, notes: `${seq} events, one 10 MB line` };
    });
  });
});
