/**
 * The MCP servers an editor passes in `session/new` and `session/load`, with the real parts: the built
 * `dsh-mode acp` child on the embedded default (no cordis.yml), the SDK's client over its pipes (every agent
 * message checked against the ACP schema), @modelcontextprotocol/server-everything from npm, and servers that
 * crash, have no such command, or never answer.
 *
 * - The embedded default starts the client's servers (untrusted), so their tools run in the default mode.
 * - `session/new` answers while a server is still starting (one that never answers does not hold it); the first
 *   prompt waits for the servers, so its first step has their tools, and `session/cancel` ends that wait.
 * - A server that crashed or has no such command is told to the client as an agent message of its own, marked
 *   `_meta["dsh-mode/notice"]`, naming the server.
 * - An MCP tool's card names its server ("everything: Echo Tool").
 * - server-everything's `format: "uri"` schemas are validated, not warned about on stderr.
 * - A replayed agent message has its `messageId`, one per message.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../engine/setup.js';
import { spawnAcp } from '../../reliability/acp-client.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const init = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} };
type Update = Record<string, unknown> & { sessionUpdate: string };

/** A stdio server entry of `mcpServers`. */
const server = (name: string, command: string, args: string[] = []): acp.McpServer => ({
  name,
  command,
  args,
  env: [],
});

/** The text of the notices among some updates. */
const notices = (updates: readonly Update[]): string[] =>
  updates
    .filter((u) => (u._meta as Record<string, unknown> | undefined)?.['dsh-mode/notice'] === true)
    .map((u) => {
      expect(u.sessionUpdate).toBe('agent_message_chunk');
      expect(typeof u.messageId).toBe('string');
      return (u.content as { text: string }).text;
    });

/**
 * Runs one agent in `dir` (no cordis.yml: the embedded default) with a model script, hands the client to `body`.
 * @returns the updates seen and the agent's stderr
 */
async function withAgent(
  dir: string,
  script: unknown[],
  body: (agent: acp.ClientContext, updates: Update[]) => Promise<void>,
): Promise<{ updates: Update[]; stderr: string; code: number | null }> {
  const file = join(dir, `.script-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(script));
  const { child, stream, exited, stderr } = spawnAcp(['--model-script', file], dir);
  const updates: Update[] = [];
  try {
    await acp
      .client({ name: 'editor-mcp-test' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        updates.push(params.update as Update);
      })
      .connectWith(stream, async (agent) => {
        await agent.request(acp.methods.agent.initialize, init);
        await body(agent, updates);
      });
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}\nstderr: ${stderr().slice(-2000)}`);
  }
  child.stdin.end();
  const code = await exited;
  return { updates, stderr: stderr(), code };
}

describe("an editor's MCP servers on the embedded default", () => {
  it('start untrusted, run their tools with cards naming the server, and failures are told to the client', async () => {
    const dir = tempDir('dsh-acp-editor-mcp-');
    const script = [
      { tool_calls: [{ name: 'mcp__everything__echo', arguments: { message: 'hello from everything' } }] },
      { text: 'Echoed.' },
    ];
    let stop: string | undefined;
    const run = await withAgent(dir, script, async (agent, updates) => {
      const { sessionId } = await agent.request(acp.methods.agent.session.new, {
        cwd: dir,
        mcpServers: [
          server('everything', process.execPath, [EVERYTHING]),
          server('crashes', process.execPath, ['-e', 'process.stderr.write("boom\\n"); process.exit(3)']),
          server('missing', join(dir, 'no-such-server')),
        ],
      });
      const answer = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'echo' }],
      });
      stop = answer.stopReason;
      expect(updates.length).toBeGreaterThan(0);
    });
    expect(run.code, run.stderr).toBe(0);
    expect(stop).toBe('end_turn');

    const call = run.updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({ title: 'everything: Echo Tool', status: 'pending' });
    const results = run.updates.filter((u) => u.sessionUpdate === 'tool_call_update');
    expect(results.map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(JSON.stringify(results[1])).toContain('hello from everything');

    const told = notices(run.updates);
    expect(told).toHaveLength(2);
    expect(told.find((t) => t.includes('`crashes`'))).toMatch(
      /^MCP: the server `crashes` (failed to start|exited).*its tools are left out$/,
    );
    expect(told.find((t) => t.includes('`missing`'))).toMatch(
      /^MCP: the server `missing` failed to start: .*ENOENT.*; its tools are left out$/,
    );
    // Told before the turn's own messages: the prompt waited for the servers before its first step.
    const firstNotice = run.updates.findIndex(
      (u) => u._meta !== undefined && u.sessionUpdate === 'agent_message_chunk',
    );
    expect(firstNotice).toBeLessThan(run.updates.indexOf(call!));
    // Each notice is its own message.
    const ids = run.updates
      .filter((u) => u._meta !== undefined && u.sessionUpdate === 'agent_message_chunk')
      .map((u) => u.messageId);
    expect(new Set(ids).size).toBe(2);

    expect(run.stderr).not.toContain('unknown format');
    expect(run.stderr).not.toContain('no `mcp` plugin');
  });

  it('answers session/new while a server that never answers is still starting; a cancel ends the prompt’s wait', async () => {
    const dir = tempDir('dsh-acp-editor-hang-');
    const run = await withAgent(dir, [], async (agent, updates) => {
      const created = await agent.request(acp.methods.agent.session.new, {
        cwd: dir,
        // Reads the handshake and never answers: the start limit (30 s) is the only end of its start.
        mcpServers: [server('silent', process.execPath, ['-e', 'process.stdin.resume()'])],
      });
      expect(created.sessionId).toMatch(/^\d{8}-/);
      // The session works at once; nothing about the server was told yet, because its start has not ended.
      await agent.request(acp.methods.agent.session.setMode, {
        sessionId: created.sessionId,
        modeId: 'plan',
      });
      expect(notices(updates)).toEqual([]);
      // A prompt waits for that server; a cancel ends the wait, and the prompt answers `cancelled`.
      const prompt = agent.request(acp.methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: 'text', text: 'go' }],
      });
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: created.sessionId });
      expect((await prompt).stopReason).toBe('cancelled');
    });
    // Closing the connection stops the server that is still starting; the agent exits cleanly.
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('a replayed session', () => {
  it('gives each replayed agent message its own messageId', async () => {
    const dir = tempDir('dsh-acp-replay-ids-');
    const script = [{ text: 'First answer.' }, { text: 'Second answer.' }];
    let sessionId = '';
    await withAgent(dir, script, async (agent) => {
      ({ sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] }));
      for (const text of ['one', 'two'])
        await agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text }],
        });
    });
    const loaded = await withAgent(dir, [], async (agent) => {
      await agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] });
    });
    const replayed = loaded.updates.filter(
      (u) => u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'user_message_chunk',
    );
    expect(replayed.map((u) => [u.sessionUpdate, (u.content as { text: string }).text])).toEqual([
      ['user_message_chunk', 'one'],
      ['agent_message_chunk', 'First answer.'],
      ['user_message_chunk', 'two'],
      ['agent_message_chunk', 'Second answer.'],
    ]);
    const ids = replayed.map((u) => u.messageId);
    for (const id of ids) expect(typeof id).toBe('string');
    expect(new Set(ids).size).toBe(4);
  });
});
