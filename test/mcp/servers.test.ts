/**
 * MCP servers as tool sources (issue 14), over the real loop, the real mode plugin and the real `mcp` plugin,
 * with real servers over stdio and no network: @modelcontextprotocol/server-filesystem, and a fixture server on
 * the SDK's own server classes (test/fixtures/mcp/fixture-server.mjs) that pages its `tools/list`, announces a
 * new tool with `list_changed`, exits mid-call and hangs on purpose. Only the model is scripted.
 *
 * Plan mode runs a trusted filesystem server's read tools and denies its write tools; an untrusted server's read
 * tools are denied (its annotations are ignored); a crashed or hung server gives the model an error and the turn
 * goes on; every page is listed; a `list_changed` reaches the next request and the gate; disposing the plugin
 * stops the servers. `dsh-mode catalog` writes what `lint`/`matrix --tools` read, untrusted hints ignored there too.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as acp from '@agentclientprotocol/sdk';
import type { Context, Fiber } from 'cordis';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAcp } from '../reliability/acp-client.js';
import { parseCatalog } from '../../src/compile/catalog/catalog.js';
import { parseDeployment } from '../../src/deploy/index.js';
import type { McpConfig } from '../../src/mcp/config.js';
import { McpPlugin } from '../../src/mcp/plugin.js';
import type { ScriptEntry } from '../../src/host/index.js';
import { agentOf, eventsOf, resultOf, setup, tempDir } from '../engine/setup.js';
import { measured } from '../reliability/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/dsh-mode.mjs');
const FS_SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = join(ROOT, 'test/fixtures/mcp/fixture-server.mjs');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const run = promisify(execFile);

const fibers: Fiber[] = [];
afterEach(async () => {
  for (const fiber of fibers.splice(0)) await fiber.dispose();
});

async function withMcp(config: McpConfig): Promise<{ ctx: Context; workspace: string; warnings: string[] }> {
  const host = await setup();
  const fiber = await host.ctx.plugin(McpPlugin, config);
  fibers.push(fiber);
  return host;
}

async function turn(ctx: Context, script: ScriptEntry[], mode?: string) {
  const { agent, model } = agentOf(ctx, script, mode ? { mode } : {});
  const outcome = await agent.prompt('go');
  return { outcome, events: agent.session.events, model };
}

describe('the mcp plugin in plan mode', () => {
  it("runs a trusted filesystem server's read tools and denies its write tools", async () => {
    await measured('mcp', 'plan: a trusted server reads, never writes', null, async () => {
      const { ctx, workspace } = await withMcp({
        servers: { fs: { command: process.execPath, args: [FS_SERVER, '.'], trusted: true } },
      });
      writeFileSync(join(workspace, 'notes.txt'), 'the plan notes\n');
      const { outcome, events } = await turn(
        ctx,
        [
          {
            tool_calls: [
              { name: 'mcp__fs__read_text_file', arguments: { path: join(workspace, 'notes.txt') } },
              { name: 'mcp__fs__write_file', arguments: { path: join(workspace, 'out.txt'), content: 'x' } },
            ],
          },
          { text: 'Done.' },
        ],
        'plan',
      );
      expect(outcome.reason).toBe('done');
      expect(resultOf(events, 'mcp__fs__read_text_file')).toMatchObject({
        isError: false,
        content: expect.stringContaining('the plan notes'),
      });
      expect(resultOf(events, 'mcp__fs__write_file')).toMatchObject({
        isError: true,
        content: expect.stringContaining('plan mode'),
      });
      expect(existsSync(join(workspace, 'out.txt'))).toBe(false);
      const header = eventsOf(events, 'request/header')[0]!.data.header;
      const names = header.tools.map((t) => t.name);
      expect(names).toContain('mcp__fs__read_text_file');
      expect(names).not.toContain('mcp__fs__write_file');
      const read = header.tools.find((t) => t.name === 'mcp__fs__read_text_file')!;
      expect(read.description).toMatch(/read/i);
      expect(read.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
      return { runs: 1, violations: 0 };
    });
  });

  it("denies an untrusted server's read tools: its annotations are not hints", async () => {
    await measured('mcp', 'plan: an untrusted server is denied', null, async () => {
      const { ctx, workspace } = await withMcp({
        servers: { fs: { command: process.execPath, args: [FS_SERVER, '.'] } },
      });
      writeFileSync(join(workspace, 'notes.txt'), 'secret-ish\n');
      expect(ctx.tools.get('mcp__fs__read_text_file')?.annotations).toBeUndefined();
      const { events } = await turn(
        ctx,
        [
          { tool_calls: [{ name: 'mcp__fs__read_text_file', arguments: { path: 'notes.txt' } }] },
          { text: 'Done.' },
        ],
        'plan',
      );
      const result = resultOf(events, 'mcp__fs__read_text_file')!;
      expect(result.isError).toBe(true);
      expect(result.content).toContain('plan mode');
      expect(result.content).not.toContain('secret-ish');
      return { runs: 1, violations: 0 };
    });
  });
});

describe('the mcp plugin with a misbehaving server', () => {
  it('gives the model an error when the server crashes mid-call, and the session goes on', async () => {
    await measured('mcp', 'a server that crashes mid-call', null, async () => {
      const { ctx } = await withMcp({ servers: { fx: { command: process.execPath, args: [FIXTURE] } } });
      const { outcome, events } = await turn(ctx, [
        { tool_calls: [{ name: 'mcp__fx__crash' }] },
        { tool_calls: [{ name: 'mcp__fx__echo', arguments: { text: 'still there?' } }] },
        { text: 'Carried on.' },
      ]);
      expect(outcome).toEqual({ reason: 'done', text: 'Carried on.' });
      const crash = resultOf(events, 'mcp__fx__crash')!;
      expect(crash.isError).toBe(true);
      expect(crash.content).toMatch(/server `fx` exited or closed its connection/);
      expect(crash.content).toContain('crashing on purpose');
      expect(resultOf(events, 'mcp__fx__echo')).toMatchObject({
        isError: true,
        content: expect.stringMatching(/server `fx` exited/),
      });
      // A later turn of the same session still runs.
      const again = await turn(ctx, [{ text: 'Next turn.' }]);
      expect(again.outcome.reason).toBe('done');
      return { runs: 1, violations: 0 };
    });
  });

  it("gives the model an error when a call outlives the server's time limit", async () => {
    await measured('mcp', 'a server that hangs', null, async () => {
      const { ctx } = await withMcp({
        servers: { fx: { command: process.execPath, args: [FIXTURE], callTimeoutMs: 300 } },
      });
      const { outcome, events } = await turn(ctx, [
        { tool_calls: [{ name: 'mcp__fx__hang' }] },
        { tool_calls: [{ name: 'mcp__fx__echo', arguments: { text: 'hi' } }] },
        { text: 'Done.' },
      ]);
      expect(outcome.reason).toBe('done');
      expect(resultOf(events, 'mcp__fx__hang')).toMatchObject({
        isError: true,
        content: expect.stringContaining('did not answer `hang` within 300 ms'),
      });
      expect(resultOf(events, 'mcp__fx__echo')).toMatchObject({ isError: false, content: 'echo: hi' });
      return { runs: 1, violations: 0 };
    });
  });

  it('starts without a server that cannot start or does not answer in time, with a warning', async () => {
    const { ctx, warnings } = await withMcp({
      servers: {
        gone: { command: join(tempDir(), 'no-such-program') },
        mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], startTimeoutMs: 200 },
        fx: { command: process.execPath, args: [FIXTURE] },
      },
    });
    expect(ctx.tools.names().filter((n) => n.startsWith('mcp__gone__'))).toEqual([]);
    expect(ctx.tools.get('mcp__fx__echo')).toBeDefined();
    expect(warnings.join('\n')).toMatch(/server `gone` failed to start/);
    expect(warnings.join('\n')).toMatch(/server `mute` did not start within 200 ms/);
    expect(ctx.tools.names().filter((n) => n.startsWith('mcp__mute__'))).toEqual([]);
  });
});

describe('the mcp plugin and server-everything', () => {
  it("passes a server its `env` and a minimal environment, never this process's secrets", async () => {
    process.env.DSH_MCP_TEST_SECRET = 'do-not-pass';
    try {
      const { ctx } = await withMcp({
        servers: {
          ev: {
            command: process.execPath,
            args: [EVERYTHING, 'stdio'],
            env: { GIVEN: 'yes' },
            trusted: true,
          },
        },
      });
      const { events } = await turn(
        ctx,
        [{ tool_calls: [{ name: 'mcp__ev__get-env' }] }, { text: 'ok' }],
        'plan',
      );
      const result = resultOf(events, 'mcp__ev__get-env')!;
      expect(result.isError).toBe(false);
      const seen = JSON.parse(result.content) as Record<string, string>;
      expect(seen.GIVEN).toBe('yes');
      expect(seen.PATH).toBe(process.env.PATH);
      expect(seen.DSH_MCP_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.DSH_MCP_TEST_SECRET;
    }
  });
});

describe('the mcp plugin follows the server', () => {
  it('registers the tools of every tools/list page', async () => {
    const { ctx } = await withMcp({ servers: { fx: { command: process.execPath, args: [FIXTURE] } } });
    expect(ctx.tools.names().filter((n) => n.startsWith('mcp__fx__'))).toEqual([
      'mcp__fx__echo',
      'mcp__fx__write_note',
      'mcp__fx__crash',
      'mcp__fx__hang',
      'mcp__fx__pid',
      'mcp__fx__add_tool',
    ]);
  });

  it('re-lists on list_changed: the next request and the gate see the new tool', async () => {
    await measured('mcp', 'list_changed reaches the next step', null, async () => {
      const { ctx } = await withMcp({
        servers: { fx: { command: process.execPath, args: [FIXTURE], trusted: true } },
      });
      expect(ctx.tools.get('mcp__fx__late')).toBeUndefined();
      const { events, model } = await turn(
        ctx,
        [
          { tool_calls: [{ name: 'mcp__fx__add_tool' }] },
          { tool_calls: [{ name: 'mcp__fx__late' }] },
          { text: 'Done.' },
        ],
        'plan',
      );
      expect(model.requests[0]!.header.tools.map((t) => t.name)).not.toContain('mcp__fx__late');
      expect(model.requests[1]!.header.tools.map((t) => t.name)).toContain('mcp__fx__late');
      const delta = eventsOf(events, 'request/header-delta')[0]!.data;
      expect(delta.added?.map((t) => t.name)).toEqual(['mcp__fx__late']);
      // The trusted server's new read-only tool is allowed by plan, so the gate saw its hints.
      expect(resultOf(events, 'mcp__fx__late')).toMatchObject({ isError: false, content: 'late tool ran' });
      return { runs: 1, violations: 0 };
    });
  });

  it('stops its servers when the plugin is disposed', async () => {
    const { ctx } = await withMcp({ servers: { fx: { command: process.execPath, args: [FIXTURE] } } });
    const { events } = await turn(ctx, [{ tool_calls: [{ name: 'mcp__fx__pid' }] }, { text: 'ok' }]);
    const pid = Number(resultOf(events, 'mcp__fx__pid')!.content);
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await fibers.pop()!.dispose();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(ctx.tools.get('mcp__fx__echo')).toBeUndefined();
  });
});

describe('catalogs with MCP tools', () => {
  it('reads tools/list pages with a server, ignoring untrusted hints, warning on a page left unread', () => {
    const page = (server: string, trusted: boolean | undefined, nextCursor?: string) =>
      JSON.stringify({
        server,
        ...(trusted === undefined ? {} : { trusted }),
        tools: [{ name: 'read_file', annotations: { readOnlyHint: true } }],
        ...(nextCursor ? { nextCursor } : {}),
      });
    const result = parseCatalog(`[${page('fs', true)}, ${page('gh', undefined, '2')}]`, 'c.json');
    expect(result.tools).toEqual([
      { name: 'mcp__fs__read_file', server: 'fs', trusted: true, hints: { readOnly: true } },
      { name: 'mcp__gh__read_file', server: 'gh', trusted: false },
    ]);
    expect(result.diagnostics).toMatchObject([
      { code: 'invalid-catalog', severity: 'warning', message: expect.stringContaining('`nextCursor`') },
    ]);
  });

  it('refuses a name listed twice with different hints, and keeps one listed twice alike', () => {
    const twice = (second: object) =>
      JSON.stringify([
        { name: 'a', annotations: { readOnlyHint: true } },
        { name: 'a', ...second },
      ]);
    expect(parseCatalog(twice({ annotations: { readOnlyHint: true } }), 'c.json')).toEqual({
      tools: [{ name: 'a', hints: { readOnly: true } }],
      diagnostics: [],
    });
    const refused = parseCatalog(twice({}), 'c.json');
    expect(refused.tools).toEqual([]);
    expect(refused.diagnostics).toMatchObject([
      { severity: 'error', message: 'tool `a` is listed twice with different hints' },
    ]);
  });

  it('`dsh-mode catalog` output feeds lint and matrix --tools, untrusted hints ignored', async () => {
    await measured('mcp', 'dsh-mode catalog feeds lint --tools', null, async () => {
      const dir = tempDir('dsh-mcp-catalog-');
      writeFileSync(
        join(dir, 'cordis.yml'),
        [
          '- name: host',
          '- name: mode',
          '  config:',
          '    modes:',
          '      review:',
          '        tools: { mcp__fs__read_text_file: allow, mcp__fx__ecko: allow }',
          '        default: deny',
          '- name: mcp',
          '  config:',
          '    servers:',
          `      fs: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FS_SERVER)}, "."], trusted: true }`,
          `      fx: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}] }`,
          '- name: demo',
          '',
        ].join('\n'),
      );
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.DEEPSEEK_API_KEY;
      await run(process.execPath, [BIN, 'catalog', '--config', 'cordis.yml', '--out', 'tools.json'], {
        cwd: dir,
        env,
      });
      const catalog = parseCatalog(
        (await import('node:fs')).readFileSync(join(dir, 'tools.json'), 'utf8'),
        'tools.json',
      );
      expect(catalog.diagnostics).toEqual([]);
      const byName = new Map(catalog.tools.map((t) => [t.name, t]));
      expect(byName.get('read')).toMatchObject({ hints: { readOnly: true } });
      expect(byName.get('exit_plan_mode')).toBeDefined();
      expect(byName.get('mcp__fs__read_text_file')).toMatchObject({
        server: 'fs',
        trusted: true,
        hints: { readOnly: true },
      });
      expect(byName.get('mcp__fx__echo')).toEqual({
        name: 'mcp__fx__echo',
        server: 'fx',
        trusted: false,
        arguments: { text: ['string'] },
      });
      expect(byName.has('mcp__fx__pid')).toBe(true);

      const lint = await run(
        process.execPath,
        [BIN, 'lint', 'cordis.yml', '--tools', 'tools.json', '--format', 'json'],
        { cwd: dir, env },
      ).catch((error: { stdout: string; code: number }) => error);
      const found = JSON.parse(lint.stdout) as { diagnostics: { rule: string; message: string }[] };
      const unmatched = found.diagnostics.filter((d) => d.rule === 'unmatched-rule').map((d) => d.message);
      expect(unmatched.join('\n')).toContain('mcp__fx__ecko');
      expect(unmatched.join('\n')).not.toContain('mcp__fs__read_text_file');

      const matrix = await run(
        process.execPath,
        [BIN, 'matrix', '--config', 'cordis.yml', '--tools', 'tools.json', '--format', 'json'],
        { cwd: dir, env },
      );
      const grid = JSON.parse(matrix.stdout) as {
        modes: { name: string }[];
        tools: { label: string }[];
        cells: { decision: string }[][];
      };
      const plan = grid.modes.findIndex((m) => m.name === 'plan');
      const decision = (tool: string) =>
        grid.cells[plan]?.[grid.tools.findIndex((t) => t.label === tool)]?.decision;
      expect(decision('mcp__fs__read_text_file')).toBe('allow');
      // The fixture declares `echo` read-only, but it is not trusted: plan denies it, as the runtime does.
      expect(decision('mcp__fx__echo')).toBe('deny');
      return { runs: 1, violations: 0 };
    });
  });
});

describe('ACP sessions with the client’s MCP servers', () => {
  it('starts the `mcpServers` of session/new and session/load; only the ones the deployment names are trusted', async () => {
    await measured('mcp', 'ACP mcpServers: trust by name', null, async () => {
      const dir = tempDir('dsh-mcp-acp-');
      writeFileSync(join(dir, 'notes.txt'), 'acp notes\n');
      writeFileSync(
        join(dir, 'cordis.yml'),
        [
          '- name: host',
          '- name: mode',
          '- name: mcp',
          '  config: { trustedEditorServers: [fs] }',
          '- name: demo',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify([
          {
            tool_calls: [
              { name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } },
              { name: 'mcp__fx__echo', arguments: { text: 'hi' } },
            ],
          },
          { text: 'Done.' },
          { tool_calls: [{ name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } }] },
          { text: 'Loaded.' },
        ]),
      );
      const { child, stream, exited, stderr } = spawnAcp(
        ['--config', 'cordis.yml', '--model-script', join(dir, 'script.json')],
        dir,
      );
      const updates: Record<string, unknown>[] = [];
      let first: Record<string, unknown>[] = [];
      let stop: string | undefined;
      try {
        await acp
          .client({ name: 'mcp-servers' })
          .onNotification(acp.methods.client.session.update, ({ params }) => {
            updates.push(params.update as Record<string, unknown>);
          })
          .connectWith(stream, async (agent) => {
            await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
            const { sessionId } = await agent.request(acp.methods.agent.session.new, {
              cwd: dir,
              mcpServers: [
                { name: 'fs', command: process.execPath, args: [FS_SERVER, dir], env: [] },
                { name: 'fx', command: process.execPath, args: [FIXTURE], env: [] },
              ],
            });
            await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
            const answer = await agent.request(acp.methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: 'text', text: 'read it' }],
            });
            stop = answer.stopReason;
            first = [...updates];
            // A loaded session starts the client's servers again, for itself.
            await agent.request(acp.methods.agent.session.load, {
              sessionId,
              cwd: dir,
              mcpServers: [{ name: 'fs', command: process.execPath, args: [FS_SERVER, dir], env: [] }],
            });
            updates.length = 0;
            const again = await agent.request(acp.methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: 'text', text: 'again' }],
            });
            expect(again.stopReason).toBe('end_turn');
            const reread = updates.filter((u) => u.sessionUpdate === 'tool_call_update');
            expect(reread.map((u) => u.status)).toEqual(['in_progress', 'completed']);
            expect(JSON.stringify(reread[1])).toContain('acp notes');
            updates.length = 0;
            updates.push(...first);
          });
      } catch (error) {
        child.kill();
        throw new Error(
          `the client lost the agent: ${(error as Error).message} ${JSON.stringify((error as { data?: unknown }).data)}\nstderr: ${stderr().slice(-2000)}`,
        );
      }
      child.stdin.end();
      expect(await exited).toBe(0);
      expect(stop).toBe('end_turn');
      const results = updates.filter((u) => u.sessionUpdate === 'tool_call_update');
      // The trusted read runs (in_progress, then its result); the untrusted server's tool is denied before it.
      expect(results.map((u) => u.status)).toEqual(['in_progress', 'completed', 'failed']);
      expect(JSON.stringify(results[1])).toContain('acp notes');
      expect(JSON.stringify(results[2])).toContain('plan mode');
      return { runs: 1, violations: 0 };
    });
  });
});

describe('the mcp entry of cordis.yml', () => {
  it('is checked by the schema with strict keys, and resolves only `./…` commands and folders from the file', () => {
    const base = tempDir('dsh-mcp-deploy-');
    const text = (server: string) => `- name: mcp\n  config:\n    servers:\n      s: ${server}\n`;
    const typo = parseDeployment(text('{ command: node, trustd: true }'), 'cordis.yml', base);
    expect(typo.entries).toEqual([]);
    expect(typo.diagnostics).toMatchObject([
      {
        severity: 'error',
        file: 'cordis.yml',
        message: expect.stringContaining('trustd'),
        range: { start: { line: 4 } },
      },
    ]);
    const bad = parseDeployment(text('{ command: node, args: "." }'), 'cordis.yml', base);
    expect(bad.entries).toEqual([]);
    const doubled = parseDeployment(
      '- name: mcp\n  config: { servers: { a__b: { command: x } } }\n',
      'c.yml',
      base,
    );
    expect(doubled.entries).toEqual([]);

    const local = parseDeployment(text('{ command: ./bin/server, cwd: ../data }'), 'cordis.yml', base);
    expect(local.diagnostics).toEqual([]);
    expect(local.entries[0]!.config).toEqual({
      servers: { s: { command: join(base, 'bin/server'), cwd: resolve(base, '../data') } },
    });
    const bare = parseDeployment(text('{ command: npx, args: [./x], cwd: sub }'), 'cordis.yml', base);
    expect(bare.entries[0]!.config).toEqual({
      servers: { s: { command: 'npx', args: ['./x'], cwd: 'sub' } },
    });
  });
});

describe('ctx.mcp: servers of one session', () => {
  it("keeps a session's servers to that session, each call to its own session's server", async () => {
    await measured('mcp', "a session's servers serve that session only", null, async () => {
      const { ctx } = await withMcp({});
      const fx = { name: 'fx', command: process.execPath, args: [FIXTURE], env: {} };
      const a = agentOf(ctx, [{ tool_calls: [{ name: 'mcp__fx__pid' }] }, { text: 'a' }]).agent;
      const b = agentOf(ctx, [{ tool_calls: [{ name: 'mcp__fx__pid' }] }, { text: 'b' }]).agent;
      const c = agentOf(ctx, [
        { tool_calls: [{ name: 'mcp__fx__echo', arguments: { text: 'x' } }] },
        { text: 'c' },
      ]);
      expect(await ctx.mcp.openSession(a.session, [fx], ctx.tools.workspace)).toEqual([]);
      expect(await ctx.mcp.openSession(b.session, [fx], ctx.tools.workspace)).toEqual([]);
      await a.prompt('go');
      await b.prompt('go');
      await c.agent.prompt('go');
      const pidA = Number(resultOf(a.session.events, 'mcp__fx__pid')!.content);
      const pidB = Number(resultOf(b.session.events, 'mcp__fx__pid')!.content);
      expect(pidA).toBeGreaterThan(0);
      expect(pidB).toBeGreaterThan(0);
      expect(pidA).not.toBe(pidB);
      // A third session without the server neither sees nor runs its tools.
      const header = eventsOf(c.agent.session.events, 'request/header')[0]!.data.header;
      expect(header.tools.some((t) => t.name.startsWith('mcp__fx__'))).toBe(false);
      expect(resultOf(c.agent.session.events, 'mcp__fx__echo')).toMatchObject({
        isError: true,
        content: expect.stringContaining("another session's MCP server"),
      });
      // Closing one session stops its server; the other keeps its own.
      await ctx.mcp.closeSession(a.session);
      expect(() => process.kill(pidA, 0)).toThrow();
      expect(() => process.kill(pidB, 0)).not.toThrow();
      expect(ctx.tools.get('mcp__fx__pid')).toBeDefined();
      await ctx.mcp.closeSession(b.session);
      expect(ctx.tools.get('mcp__fx__pid')).toBeUndefined();
      return { runs: 1, violations: 0 };
    });
  });

  it('leaves out a session server whose name the deployment uses', async () => {
    const { ctx } = await withMcp({ servers: { fx: { command: process.execPath, args: [FIXTURE] } } });
    const { agent } = agentOf(ctx, [{ text: 'x' }]);
    const warnings = await ctx.mcp.openSession(
      agent.session,
      [{ name: 'fx', command: process.execPath, args: [FIXTURE], env: {} }],
      ctx.tools.workspace,
    );
    expect(warnings).toEqual(['MCP server `fx` is left out: the deployment runs a server of that name']);
  });
});
