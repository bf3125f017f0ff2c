/**
 * Huge protocol messages, both ways, against the built `dsh-mode acp` over real pipes. A client line over the
 * agent's 8 MiB limit (even one over the SDK's own 32 MiB) is answered with a JSON-RPC error for its id and the
 * agent goes on; a plan over the schema's 100,000 characters is refused with a tool error, and no update the agent
 * sends is too large for the real SDK client, which keeps its connection through a huge plan, a large tool result
 * (cut with a note) and a long message (sent as several chunks); a valid plan of the maximum length reaches the
 * approval whole. An input stream that fails ends the agent with a message and a non-zero exit.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../engine/setup.js';
import { RawAcpClient, spawnAcp } from './acp-client.js';
import { measured } from './config.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');
const MiB = 1024 * 1024;
const init = { protocolVersion: 1, clientCapabilities: {} };

function workspace(): string {
  const dir = realpathSync(tempDir());
  mkdirSync(join(dir, '.dsh'), { recursive: true });
  return dir;
}

/** A request line of about `bytes` bytes, with `id` first or after the params, or without one. */
function hugeLine(bytes: number, id: number | string | undefined, idLast = false): Buffer {
  const params = `"params":{"sessionId":"x","prompt":[{"type":"text","text":"${'a'.repeat(bytes)}"}]}`;
  const head = '{"jsonrpc":"2.0","method":"session/prompt",';
  const idPart = id === undefined ? '' : `"id":${JSON.stringify(id)}`;
  if (id === undefined) return Buffer.from(`${head}${params}}\n`);
  return Buffer.from(idLast ? `${head}${params},${idPart}}\n` : `{${idPart},${head.slice(1)}${params}}\n`);
}

describe('hostile ACP wire: message sizes', () => {
  it('answers over-long lines with an error for their id (or id null) and keeps serving', async () => {
    await measured('hostile', 'acp: over-long client lines', null, async () => {
      const client = new RawAcpClient(workspace(), [{ text: 'x' }]);
      try {
        expect((await client.request('initialize', init)).result).toBeDefined();
        const cases: { line: Buffer; id: number | string | null }[] = [
          { line: hugeLine(33 * MiB, 77), id: 77 },
          { line: hugeLine(9 * MiB, 'late', true), id: 'late' },
          { line: hugeLine(9 * MiB, undefined), id: null },
        ];
        for (const { line, id } of cases) {
          client.write(line);
          const answer = await client.waitFor((m) => m.error !== undefined && m.id === id, 60_000);
          expect(answer.error!.code).toBe(-32600);
          expect(answer.error!.message).toMatch(/over the 8388608-byte limit/);
          // The next request still answers.
          expect((await client.request('initialize', init)).result).toBeDefined();
        }
        expect(client.stderr).toMatch(/no request id could be read/);
        expect(client.noise).toEqual([]);
        expect(await client.close()).toBe(0);
        return {
          runs: cases.length,
          violations: 0,
          notes: 'lines of 33 MiB and 9 MiB, id first, last, none',
        };
      } finally {
        client.child.kill();
      }
    });
  }, 120_000);

  it('exits non-zero with a message when its input stream fails', async () => {
    await measured('hostile', 'acp: a failing input stream', null, async () => {
      const dir = workspace();
      writeFileSync(join(dir, 'script.json'), '[{"text":"x"}]');
      // stdin is a TCP connection that the other end resets: the agent's next read fails with ECONNRESET.
      const server = createServer();
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const accepted = new Promise<Socket>((done) => server.once('connection', done));
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((done) => socket.once('connect', done));
      const peer = await accepted;
      const env = { ...process.env };
      delete env.DEEPSEEK_API_KEY;
      const child = spawn(process.execPath, [BIN, 'acp', '--model-script', join(dir, 'script.json')], {
        cwd: dir,
        env,
        stdio: [socket, 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      const exited = new Promise<number | null>((done) => child.on('close', done));
      try {
        // Once it answers, it is reading: then reset the connection.
        peer.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }) + '\n');
        await expect.poll(() => stdout, { timeout: 20_000 }).toContain('"id":1');
        peer.resetAndDestroy();
        const code = await exited;
        expect(code).toBe(2);
        expect(stderr).toMatch(/dsh-mode acp: the connection to the client failed: .*ECONNRESET/);
      } finally {
        child.kill();
        socket.destroy();
        server.close();
      }
      return { runs: 1, violations: 0 };
    });
  });

  it('keeps the SDK client connected through a huge plan, a large result and a long message', async () => {
    await measured('hostile', 'acp: huge plans and updates to the SDK client', null, async () => {
      const dir = workspace();
      // A heading as long as the plan: title, content and rawInput would each carry it (34 MB on one line).
      const hugePlan = `# ${'x'.repeat(11_300_000)}`;
      const body = Array.from({ length: 3000 }, (_, i) => `${i}. step\twith a tab`).join('\n');
      const maxPlan = `# Max plan\n${body}\n`.padEnd(100_000, '.');
      expect(maxPlan).toHaveLength(100_000);
      const longText = 'y'.repeat(1_000_000);
      writeFileSync(join(dir, 'big.txt'), 'b'.repeat(250_000));
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify([
          { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: hugePlan } }] },
          { tool_calls: [{ name: 'read', arguments: { path: 'big.txt' } }] },
          { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: maxPlan } }] },
          { text: longText },
        ]),
      );
      const { child, stream, exited, stderr } = spawnAcp(['--model-script', join(dir, 'script.json')], dir);
      const updates: Record<string, unknown>[] = [];
      const asked: acp.RequestPermissionRequest[] = [];
      let stop: string | undefined;
      try {
        await acp
          .client({ name: 'hostile-wire' })
          .onNotification(acp.methods.client.session.update, ({ params }) => {
            updates.push(params.update as Record<string, unknown>);
          })
          .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
            asked.push(params);
            return { outcome: { outcome: 'selected', optionId: 'allow' } };
          })
          .connectWith(stream, async (agent) => {
            await agent.request(acp.methods.agent.initialize, init);
            const { sessionId } = await agent.request(acp.methods.agent.session.new, {
              cwd: dir,
              mcpServers: [],
            });
            await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
            const answer = await agent.request(acp.methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: 'text', text: 'plan it' }],
            });
            stop = answer.stopReason;
          });
      } catch (error) {
        child.kill();
        throw new Error(
          `the client lost the agent: ${(error as Error).message}\nstderr: ${stderr().slice(-2000)}`,
        );
      }
      expect(stop).toBe('end_turn');
      const texts = (u: Record<string, unknown>): string[] =>
        ((u.content as { content?: { text?: string } }[] | undefined) ?? []).map(
          (c) => c.content?.text ?? '',
        );
      const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
      // The outcomes (the read's in_progress comes before its result and says nothing more).
      const results = updates.filter(
        (u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress',
      );
      expect(calls).toHaveLength(3);
      // The huge plan: a bounded card, refused by the schema before any approval.
      expect((calls[0]!.title as string).length).toBeLessThanOrEqual(500);
      expect(texts(calls[0]!)[0]).toMatch(/more characters not shown\]$/);
      expect(results[0]!.status).toBe('failed');
      expect(texts(results[0]!)[0]).toMatch(/\/plan must NOT have more than 100000 characters/);
      // The large read: cut with a note.
      expect(texts(results[1]!)[0]).toMatch(/^b{200000}\n\n\[… 50000 more characters not shown\]$/);
      // The longest valid plan: asked once, whole.
      expect(asked).toHaveLength(1);
      expect(asked[0]!.toolCall.content?.[0]).toMatchObject({ content: { text: maxPlan } });
      expect((asked[0]!.toolCall.rawInput as { plan: string }).plan).toBe(maxPlan);
      // The long message: several chunks, nothing lost.
      const chunks = updates
        .filter((u) => u.sessionUpdate === 'agent_message_chunk')
        .map((u) => (u.content as { text: string }).text);
      expect(chunks.length).toBeGreaterThan(1);
      expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(200_000);
      expect(chunks.join('')).toBe(longText);
      child.stdin.end();
      expect(await exited).toBe(0);
      return {
        runs: 4,
        violations: 0,
        notes: 'an 11 MB plan, a 250 kB read, a 100k-character plan, a 1 MB text',
      };
    });
  }, 180_000);
});
