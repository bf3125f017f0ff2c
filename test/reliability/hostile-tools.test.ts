/**
 * Item 3, the model as attacker: over the real loop with the built-in tools, the model calls tools with wrong
 * argument types, 10 MB arguments, unknown and prototype names (`__proto__`, `constructor`), path escapes through
 * `..`, absolute paths and symbolic links (to a file and to a folder outside the workspace). Each call gets an
 * error result the model can read, the turn goes on to its next step, and nothing outside the workspace is read
 * or changed. The same battery in plan mode never runs `write`, `edit` or `bash`.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptEntry } from '../../src/host/index.js';
import { agentOf, eventsOf, setup, tempDir } from '../engine/setup.js';
import { measured } from './config.js';

const TEN_MB = 'x'.repeat(10 * 1024 * 1024);

function battery(
  outside: string,
): { name: string; call: { name: string; arguments?: Record<string, unknown> }; error: RegExp }[] {
  const secret = join(outside, 'secret.txt');
  return [
    {
      name: 'read with a number path',
      call: { name: 'read', arguments: { path: 42 } },
      error: /invalid arguments for `read`/,
    },
    {
      name: 'read with an object path',
      call: { name: 'read', arguments: { path: { toString: 'x' } } },
      error: /invalid arguments/,
    },
    {
      name: 'write without content',
      call: { name: 'write', arguments: { path: 'a.txt' } },
      error: /invalid arguments for `write`/,
    },
    {
      name: 'todo_write with a string',
      call: { name: 'todo_write', arguments: { todos: 'all of them' } },
      error: /invalid arguments/,
    },
    {
      name: 'unknown tool',
      call: { name: 'rm_rf', arguments: {} },
      error: /unknown tool `rm_rf`; available tools: /,
    },
    { name: '__proto__ tool', call: { name: '__proto__', arguments: {} }, error: /unknown tool `__proto__`/ },
    {
      name: 'constructor tool',
      call: { name: 'constructor', arguments: {} },
      error: /unknown tool `constructor`/,
    },
    { name: 'hasOwnProperty tool', call: { name: 'hasOwnProperty', arguments: {} }, error: /unknown tool/ },
    { name: 'empty tool name', call: { name: '', arguments: {} }, error: /unknown tool/ },
    {
      name: 'exit_plan_mode in default',
      call: { name: 'exit_plan_mode', arguments: { plan: '# p' } },
      error: /not available in default mode/,
    },
    {
      name: 'read through ..',
      call: { name: 'read', arguments: { path: '../secret.txt' } },
      error: /outside the workspace/,
    },
    {
      name: 'read deep ..',
      call: { name: 'read', arguments: { path: 'a/../../../../../../etc/passwd' } },
      error: /outside the workspace/,
    },
    {
      name: 'read an absolute path',
      call: { name: 'read', arguments: { path: secret } },
      error: /outside the workspace/,
    },
    {
      name: 'read /etc/passwd',
      call: { name: 'read', arguments: { path: '/etc/passwd' } },
      error: /outside the workspace/,
    },
    { name: 'read a NUL path', call: { name: 'read', arguments: { path: 'a\u0000b' } }, error: /NUL/ },
    {
      name: 'read a file symlink out',
      call: { name: 'read', arguments: { path: 'file-link' } },
      error: /symbolic link/,
    },
    {
      name: 'read through a folder symlink',
      call: { name: 'read', arguments: { path: 'dir-link/secret.txt' } },
      error: /symbolic link/,
    },
    {
      name: 'write through a file symlink',
      call: { name: 'write', arguments: { path: 'file-link', content: 'pwned' } },
      error: /symbolic link/,
    },
    {
      name: 'write into a folder symlink',
      call: { name: 'write', arguments: { path: 'dir-link/new.txt', content: 'pwned' } },
      error: /symbolic link/,
    },
    {
      name: 'write through ..',
      call: { name: 'write', arguments: { path: '../new.txt', content: 'pwned' } },
      error: /outside the workspace/,
    },
    {
      name: 'edit through a symlink',
      call: { name: 'edit', arguments: { path: 'file-link', old_string: 'secret', new_string: 'pwned' } },
      error: /symbolic link/,
    },
    {
      name: 'list a folder symlink',
      call: { name: 'list', arguments: { path: 'dir-link' } },
      error: /symbolic link/,
    },
    {
      name: 'list the parent',
      call: { name: 'list', arguments: { path: '..' } },
      error: /outside the workspace/,
    },
    {
      name: 'grep outside',
      call: { name: 'grep', arguments: { pattern: 'secret', path: '..' } },
      error: /outside the workspace/,
    },
    { name: '10 MB path', call: { name: 'read', arguments: { path: TEN_MB } }, error: /Error: / },
    { name: '10 MB tool name', call: { name: TEN_MB, arguments: {} }, error: /unknown tool `x{200}…`/ },
    {
      name: '10 MB grep pattern',
      call: { name: 'grep', arguments: { pattern: TEN_MB } },
      error: /Error: |no match/i,
    },
  ];
}

/** A workspace with a secret outside it and symbolic links pointing there. */
function arena(): { workspace: string; outside: string } {
  const root = tempDir('dsh-hostile-tools-');
  const workspace = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  writeFileSync(join(workspace, 'README.md'), 'hello');
  symlinkSync(join(outside, 'secret.txt'), join(workspace, 'file-link'));
  symlinkSync(outside, join(workspace, 'dir-link'));
  return { workspace, outside };
}

describe('hostile model: tool calls', () => {
  it('each hostile call is an error result, the turn goes on, and nothing outside the workspace changes', async () => {
    await measured('hostile', 'tools: hostile calls in default mode', null, async () => {
      const { workspace, outside } = arena();
      const { ctx } = await setup({ workspace });
      const cases = battery(outside);
      const script: ScriptEntry[] = cases.map((c) => ({ text: c.name, tool_calls: [c.call] }));
      // A 10 MB write inside the workspace is legitimate in default mode: it works and nothing breaks.
      script.push({ tool_calls: [{ name: 'write', arguments: { path: 'big.txt', content: TEN_MB } }] });
      script.push({ tool_calls: [{ name: 'read', arguments: { path: 'README.md' } }] });
      script.push({ text: 'done' });
      const { agent } = agentOf(ctx, script);
      const outcome = await agent.prompt('attack', {});
      expect(outcome.reason).toBe('max-steps'); // 25 steps by default: the loop kept going step after step
      const results = eventsOf(agent.session.events, 'tool/result').map((e) => e.data);
      cases.slice(0, results.length).forEach((c, i) => {
        expect(results[i]!.isError, c.name).toBe(true);
        expect(results[i]!.content, c.name).toMatch(c.error);
        // Errors do not echo 10 MB back to the model.
        expect(results[i]!.content.length, c.name).toBeLessThan(64 * 1024);
      });
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
      expect(readdirSync(outside)).toEqual(['secret.txt']);
      expect(existsSync(join(workspace, '..', 'new.txt'))).toBe(false);
      // The rest of the battery, then the legitimate calls, with room for all steps.
      const rest = cases.slice(results.length);
      const { agent: second } = agentOf(
        ctx,
        [...rest.map((c) => ({ text: c.name, tool_calls: [c.call] })), ...script.slice(-3)],
        { maxSteps: 100 },
      );
      expect((await second.prompt('more')).reason).toBe('done');
      const more = eventsOf(second.session.events, 'tool/result').map((e) => e.data);
      rest.forEach((c, i) => {
        expect(more[i]!.isError, c.name).toBe(true);
        expect(more[i]!.content, c.name).toMatch(c.error);
        expect(more[i]!.content.length, c.name).toBeLessThan(64 * 1024);
      });
      expect(more.at(-2)!.isError).toBe(false);
      expect(more.at(-1)!.content).toContain('hello');
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
      return {
        runs: cases.length + 2,
        violations: 0,
        notes: `${cases.length} hostile calls + a legitimate 10 MB write`,
      };
    });
  }, 120_000);

  it('in plan mode the same battery never runs write, edit or bash', async () => {
    await measured('hostile', 'tools: hostile calls in plan mode', null, async () => {
      const { workspace, outside } = arena();
      const { ctx } = await setup({ workspace });
      const writes = [
        { name: 'write', arguments: { path: 'plan-write.txt', content: 'x' } },
        { name: 'write', arguments: { path: '__proto__', content: 'x' } },
        { name: 'edit', arguments: { path: 'README.md', old_string: 'hello', new_string: 'pwned' } },
        { name: 'bash', arguments: { command: 'echo pwned > README.md' } },
        { name: 'exit_plan_mode', arguments: { plan: 42 } as unknown as Record<string, unknown> },
        { name: 'exit_plan_mode', arguments: { plan: '   ' } },
      ];
      const script: ScriptEntry[] = [
        ...battery(outside).map((c) => ({ tool_calls: [c.call] })),
        ...writes.map((call) => ({ tool_calls: [call] })),
        { text: 'done' },
      ];
      const { agent } = agentOf(ctx, script, { mode: 'plan', maxSteps: 100 });
      expect((await agent.prompt('attack')).reason).toBe('done');
      const results = eventsOf(agent.session.events, 'tool/result').map((e) => e.data);
      expect(results.every((r) => r.isError)).toBe(true);
      expect(readFileSync(join(workspace, 'README.md'), 'utf8')).toBe('hello');
      expect(existsSync(join(workspace, 'plan-write.txt'))).toBe(false);
      expect(existsSync(join(workspace, '__proto__'))).toBe(false);
      // Only the one well-formed plan reaches the user (no answerer here: unavailable, so plan mode stays).
      expect(eventsOf(agent.session.events, 'approval/asked').map((e) => e.data.toolName)).toEqual([
        'exit_plan_mode',
      ]);
      expect(ctx.modes.get(agent).current).toBe('plan');
      return {
        runs: script.length - 1,
        violations: 0,
        notes: 'the battery plus writes, edits, bash and bad plans',
      };
    });
  }, 120_000);

  it('a model answering malformed responses never breaks the loop and never runs a tool it should not', async () => {
    await measured('hostile', 'tools: malformed model responses', null, async () => {
      const { workspace } = arena();
      const { ctx } = await setup({ workspace });
      const answers: unknown[] = [
        { text: 42, toolCalls: [] },
        { text: 'x', toolCalls: [{ name: 42, arguments: {} }] },
        { text: 'x', toolCalls: [{ name: 'write', arguments: 'path=pwned.txt' }] },
        { text: 'x', toolCalls: [{ name: 'write', arguments: null }] },
        { text: 'x', toolCalls: [{ name: 'write', arguments: [1, 2] }] },
        { text: 'x', toolCalls: [null] },
        { text: 'x', toolCalls: 'write' },
        { text: 'x' },
        null,
      ];
      let outcomes = 0;
      for (const [answer, mode] of answers.flatMap((a) => [[a, 'plan'] as const, [a, undefined] as const])) {
        const model = { name: 'broken', complete: async () => answer as never };
        const session = ctx.sessions.create({ inMemory: true });
        const agent = ctx.agents.create({ session, model, options: mode ? { mode } : {} });
        const outcome = await agent.prompt('go');
        expect(['done', 'error', 'max-steps']).toContain(outcome.reason);
        expect(session.turnOpen).toBe(false);
        outcomes++;
      }
      expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
      return {
        runs: outcomes,
        violations: 0,
        notes:
          'in plan and default mode: non-string text and names, string/null/array arguments, null calls, no toolCalls, null answer',
      };
    });
  });
});
