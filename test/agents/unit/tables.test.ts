/**
 * The per-agent tables (src/agents/tables.ts) against the hook inputs captured from the pinned agents
 * (test/agents/fixtures/): every captured call maps to the dsh-mode tool and argument it stands for.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, mapCalls, readInput } from '../../../src/agents/input.js';
import { AGENTS, TOOL_TABLES } from '../../../src/agents/tables.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

function fixtures(agent: string): Array<[string, Record<string, unknown>]> {
  return readdirSync(join(FIXTURES, agent))
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, JSON.parse(readFileSync(join(FIXTURES, agent, f), 'utf8')) as Record<string, unknown>]);
}

/** What each captured call must become: dsh-mode's tool, and the argument that carries the subject. */
const EXPECTED: Record<string, Record<string, [string, string]>> = {
  'claude-code': {
    Bash: ['bash', 'command'],
    Write: ['write', 'path'],
    Edit: ['edit', 'path'],
    Read: ['read', 'path'],
  },
  codex: { Bash: ['bash', 'command'] },
  gemini: {
    run_shell_command: ['bash', 'command'],
    write_file: ['write', 'path'],
    replace: ['edit', 'path'],
    read_file: ['read', 'path'],
  },
  opencode: {
    bash: ['bash', 'command'],
    write: ['write', 'path'],
    edit: ['edit', 'path'],
    read: ['read', 'path'],
  },
};

describe('the tool tables against the captured inputs', () => {
  for (const agent of AGENTS) {
    it.each(fixtures(agent))(`${agent}: %s`, (_name, input) => {
      const read = readInput(agent, input, '/fallback');
      const tool = read.agentTool;
      if (agent === 'codex' && tool === 'apply_patch') {
        // Every path of the patch is a write or an edit of that path.
        expect(read.calls.length).toBeGreaterThan(0);
        for (const c of read.calls) {
          expect(['write', 'edit']).toContain(c.call.name);
          expect((c.call.arguments as { path: string }).path).toBe(c.subject);
        }
        return;
      }
      const [ours, arg] = EXPECTED[agent]![tool]!;
      expect(read.calls).toHaveLength(1);
      const call = read.calls[0]!.call;
      expect(call.name).toBe(ours);
      const value = (call.arguments as Record<string, unknown>)[arg];
      expect(typeof value).toBe('string');
      expect(read.calls[0]!.subject).toBe(value);
      expect(read.session).toMatch(/^\S+$/);
    });
  }

  it('captures every tool the tables name for the shell and the file tools', () => {
    for (const agent of AGENTS) {
      const seen = new Set(
        fixtures(agent).map(([, i]) =>
          agent === 'opencode' ? (i.input as { tool: string }).tool : i.tool_name,
        ),
      );
      for (const tool of Object.keys(EXPECTED[agent]!)) expect(seen.has(tool), `${agent} ${tool}`).toBe(true);
      for (const tool of Object.keys(EXPECTED[agent]!))
        expect(TOOL_TABLES[agent][tool]?.tool).toBe(EXPECTED[agent]![tool]![0]);
    }
  });

  it('decides a tool the table does not know, and an MCP tool, under its own name with its arguments', () => {
    expect(mapCalls('claude-code', 'Agent', { prompt: 'x' })).toEqual([
      { call: { name: 'Agent', arguments: { prompt: 'x' } } },
    ]);
    expect(mapCalls('gemini', 'mcp__gh__create_issue', { title: 't' })[0]!.call.name).toBe(
      'mcp__gh__create_issue',
    );
    // A name inherited from Object.prototype is not a table row.
    expect(mapCalls('codex', 'constructor', {})[0]!.call.name).toBe('constructor');
  });

  it('refuses inputs it cannot decide: another event, no session, a path in the session id, a command that is not text', () => {
    const base = {
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      cwd: '/w',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    };
    expect(() => readInput('claude-code', { ...base, hook_event_name: 'PostToolUse' }, '/')).toThrow(
      InputError,
    );
    expect(() => readInput('claude-code', { ...base, session_id: undefined }, '/')).toThrow(/session_id/);
    expect(() => readInput('claude-code', { ...base, session_id: '../../etc/x' }, '/')).toThrow(/session id/);
    expect(() => readInput('claude-code', { ...base, cwd: 'relative' }, '/')).toThrow(/absolute/);
    expect(() => readInput('claude-code', { ...base, tool_input: { command: ['rm', '-rf'] } }, '/')).toThrow(
      /not text/,
    );
    expect(() => readInput('gemini', base, '/')).toThrow(/BeforeTool/);
    expect(() => readInput('opencode', { input: { tool: 'bash' } }, '/')).toThrow(/sessionID/);
  });
});
