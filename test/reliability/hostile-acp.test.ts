/**
 * Item 3, ACP: a client writing raw bytes to the built `dsh-mode acp` — malformed JSON, JSON that is not JSON-RPC,
 * wrong params, unknown methods and notifications, set_mode and prompts for unknown sessions (-32002, resource
 * not found), unknown modes, binary garbage, a 10 MB line, 100k-deep nesting, prompts after a cancel, a cancel
 * while a plan awaits approval,
 * a second prompt while one runs. Each gets a clear error (or is ignored, for notifications), and a valid request
 * sent right after it still answers; stdout stays protocol only; closing stdin exits 0.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../engine/setup.js';
import { RawAcpClient, type RpcMessage } from './acp-client.js';
import { measured } from './config.js';

const init = { protocolVersion: 1, clientCapabilities: {} };

/** Hostile lines and what must come back (a JSON-RPC error code, or nothing for a notification). */
const CATALOGUE: { name: string; raw: string; expect: number | null; id?: number }[] = [
  { name: 'malformed JSON', raw: '{not json}\n', expect: -32700 },
  { name: 'binary garbage', raw: '\u0000\u00ff\u00fe\u0001garbage\n', expect: -32700 },
  { name: 'unterminated string', raw: '{"jsonrpc":"2.0","id":1,"method":"x\n', expect: -32700 },
  { name: '100k-deep nesting', raw: '['.repeat(100_000) + '\n', expect: -32700 },
  { name: 'a batch', raw: '[{"jsonrpc":"2.0","id":3,"method":"initialize"}]\n', expect: -32600 },
  { name: 'a bare number', raw: '42\n', expect: -32600 },
  { name: 'no jsonrpc field', raw: '{"id":4,"method":"initialize"}\n', expect: -32600 },
  {
    name: 'params of the wrong type',
    raw: '{"jsonrpc":"2.0","id":5,"method":"session/new","params":42}\n',
    expect: -32602,
    id: 5,
  },
  {
    name: 'params missing',
    raw: '{"jsonrpc":"2.0","id":6,"method":"session/prompt"}\n',
    expect: -32602,
    id: 6,
  },
  {
    name: 'unknown method',
    raw: '{"jsonrpc":"2.0","id":7,"method":"nope/nope","params":{}}\n',
    expect: -32601,
    id: 7,
  },
  {
    name: '__proto__ method',
    raw: '{"jsonrpc":"2.0","id":8,"method":"__proto__","params":{}}\n',
    expect: -32601,
    id: 8,
  },
  {
    name: 'unknown notification',
    raw: '{"jsonrpc":"2.0","method":"nope/notify","params":{}}\n',
    expect: null,
  },
  {
    name: 'set_mode for an unknown session',
    raw: '{"jsonrpc":"2.0","id":9,"method":"session/set_mode","params":{"sessionId":"nosuch","modeId":"plan"}}\n',
    expect: -32002,
    id: 9,
  },
  {
    name: 'prompt for an unknown session',
    raw: '{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"../../etc","prompt":[{"type":"text","text":"x"}]}}\n',
    expect: -32002,
    id: 10,
  },
  {
    name: 'load of a session that does not exist',
    raw: '{"jsonrpc":"2.0","id":11,"method":"session/load","params":{"sessionId":"nosuch","cwd":"/tmp","mcpServers":[]}}\n',
    expect: -32002,
    id: 11,
  },
  {
    name: 'cancel for an unknown session',
    raw: '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nosuch"}}\n',
    expect: null,
  },
];

describe('hostile ACP clients', () => {
  it('each hostile message gets a clear error and a valid request right after it still answers', async () => {
    await measured('hostile', 'acp: raw hostile messages', null, async () => {
      const workspace = tempDir('dsh-hostile-acp-');
      const client = new RawAcpClient(
        workspace,
        Array.from({ length: 20 }, () => ({ text: 'ok' })),
      );
      expect((await client.request('initialize', init)).result?.protocolVersion).toBe(1);
      for (const item of CATALOGUE) {
        const before = client.received.length;
        client.write(item.raw);
        if (item.expect !== null) {
          const reply = await client.waitFor(
            (m, i = client.received.indexOf(m)) =>
              i >= before &&
              m.error !== undefined &&
              (item.id === undefined ? m.id === null : m.id === item.id),
          );
          expect(reply.error!.code, item.name).toBe(item.expect);
          expect(reply.error!.message.length, item.name).toBeGreaterThan(0);
        }
        const probe = await client.request('initialize', init);
        expect(probe.result?.protocolVersion, `still serving after ${item.name}`).toBe(1);
      }
      // A 10 MB line: answered (or refused) without taking the process down.
      const huge = await client.request('session/new', {
        cwd: workspace,
        mcpServers: [],
        junk: 'x'.repeat(10 * 1024 * 1024),
      });
      expect(huge.result !== undefined || huge.error !== undefined).toBe(true);
      expect((await client.request('initialize', init)).result).toBeDefined();
      // set_mode to an unknown mode on a real session: a clear error naming the modes.
      const created = await client.request('session/new', { cwd: workspace, mcpServers: [] });
      const sessionId = created.result!.sessionId as string;
      const bad = await client.request('session/set_mode', { sessionId, modeId: '__proto__' });
      expect(bad.error?.code).toBe(-32602);
      expect(bad.error?.message).toContain('plan');
      expect(client.noise).toEqual([]);
      expect(await client.close()).toBe(0);
      return {
        runs: CATALOGUE.length + 2,
        violations: 0,
        notes: `${CATALOGUE.length} raw messages, a 10 MB line, an unknown mode`,
      };
    });
  }, 120_000);

  it('prompts after a cancel, a cancel while a plan awaits approval, and a second concurrent prompt', async () => {
    await measured('hostile', 'acp: cancel and concurrent prompts', null, async () => {
      const workspace = tempDir('dsh-hostile-acp-');
      const script = [
        { text: 'first' },
        { text: 'proposing', tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# P\nx' } }] },
        { text: 'after the cancel' },
        { text: 'spare' },
        { text: 'spare' },
      ];
      const client = new RawAcpClient(workspace, script);
      await client.request('initialize', init);
      const sessionId = (await client.request('session/new', { cwd: workspace, mcpServers: [] })).result!
        .sessionId as string;
      const prompt = (text: string) =>
        client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      // A cancel with nothing running is harmless: the next prompt runs normally.
      client.notify('session/cancel', { sessionId });
      expect((await prompt('one')).result?.stopReason).toBe('end_turn');
      // In plan mode the exit asks; cancel while the question is open.
      expect((await client.request('session/set_mode', { sessionId, modeId: 'plan' })).error).toBeUndefined();
      const running = prompt('two');
      const ask = await client.waitFor((m) => m.method === 'session/request_permission');
      // A second prompt while the first runs: an answer (error or result), never a crash.
      const second = await prompt('concurrent');
      expect(second.error !== undefined || second.result !== undefined).toBe(true);
      client.notify('session/cancel', { sessionId });
      // The open question is answered `cancelled` by the client, as ACP asks after a cancel.
      client.write(
        JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'cancelled' } } }) + '\n',
      );
      const cancelled = await running;
      expect(cancelled.result?.stopReason).toBe('cancelled');
      const after = await prompt('three');
      expect(after.result?.stopReason).toBe('end_turn');
      // The cancelled exit never left plan: no current_mode_update to default was sent.
      const modeUpdates = client.received
        .filter((m: RpcMessage) => m.method === 'session/update')
        .map((m) => m.params!.update as { sessionUpdate: string; currentModeId?: string })
        .filter((u) => u.sessionUpdate === 'current_mode_update')
        .map((u) => u.currentModeId);
      expect(modeUpdates).not.toContain('default');
      expect(client.noise).toEqual([]);
      expect(await client.close()).toBe(0);
      return {
        runs: 4,
        violations: 0,
        notes: 'cancel idle, cancel during approval, concurrent prompt, prompt after cancel',
      };
    });
  }, 120_000);

  it('session/load of a log with a malformed mode/set answers, and the session fails closed', async () => {
    await measured('hostile', 'acp: load a log with a malformed mode/set', null, async () => {
      const workspace = tempDir('dsh-hostile-acp-');
      const id = '20261130-000000-bad';
      const dir = join(workspace, '.dsh', 'sessions');
      mkdirSync(dir, { recursive: true });
      const time = '2026-11-30T00:00:00.000Z';
      const lines = [
        { seq: 1, type: 'turn/start', data: { turn: 1 }, time },
        { seq: 2, type: 'mode/set', data: { mode: 42 }, time },
        { seq: 3, type: 'turn/end', data: { turn: 1, reason: 'done' }, time },
      ];
      writeFileSync(join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l) + '\n').join(''));
      const client = new RawAcpClient(workspace, [
        { tool_calls: [{ name: 'write', arguments: { path: 'pwned.txt', content: 'x' } }] },
        { text: 'done' },
      ]);
      await client.request('initialize', init);
      const loaded = await client.request('session/load', { sessionId: id, cwd: workspace, mcpServers: [] });
      expect(loaded.error, JSON.stringify(loaded.error)).toBeUndefined();
      const current = (loaded.result?.modes as { currentModeId?: unknown } | undefined)?.currentModeId;
      expect(typeof current).toBe('string');
      expect(current).not.toBe('default');
      const prompt = await client.request('session/prompt', {
        sessionId: id,
        prompt: [{ type: 'text', text: 'write it' }],
      });
      expect(prompt.result?.stopReason).toBe('end_turn');
      expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
      // The user can still switch the session back to a defined mode.
      expect(
        (await client.request('session/set_mode', { sessionId: id, modeId: 'plan' })).error,
      ).toBeUndefined();
      expect(client.noise).toEqual([]);
      expect(await client.close()).toBe(0);
      return {
        runs: 1,
        violations: 0,
        notes: 'a log whose mode/set is {mode: 42}: loads, denies a write, accepts set_mode',
      };
    });
  }, 120_000);
});
