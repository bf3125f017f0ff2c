/**
 * The pure parts of the ACP agent (src/apps/acp/): session events mapped to `session/update` payloads, the
 * permission options, and prompt text. The wire behaviour end to end is pinned by test/scenarios/.
 */
import { describe, expect, it } from 'vitest';
import { promptText } from '../../../src/apps/acp/agent-app.js';
import { permissionOptions } from '../../../src/apps/acp/permission.js';
import { chunkUpdates, noticeUpdates, presentCall, updatesFor } from '../../../src/apps/acp/updates.js';
import type { SessionEvent, Tool } from '../../../src/host/types.js';

const event = (type: string, data: object): SessionEvent =>
  ({ seq: 1, type, data, time: '2026-11-30T00:00:00.000Z' }) as SessionEvent;

const exitTool = {
  name: 'exit_plan_mode',
  present: (args: { plan: string }) => ({ title: 'My plan', markdown: args.plan }),
} as unknown as Tool;
const tools = (name: string): Tool | undefined => (name === 'exit_plan_mode' ? exitTool : undefined);

describe('updatesFor', () => {
  it('maps a tool call to a pending card titled by present(), with the plan as markdown content', () => {
    const [update] = updatesFor(
      event('tool/call', { callId: 'c1', name: 'exit_plan_mode', arguments: { plan: '# P' } }),
      tools,
    );
    expect(update).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'My plan',
      kind: 'switch_mode',
      status: 'pending',
      rawInput: { plan: '# P' },
      content: [{ type: 'content', content: { type: 'text', text: '# P' } }],
    });
  });

  it('titles other calls by tool name and path, and maps results to completed or failed', () => {
    expect(
      updatesFor(event('tool/call', { callId: 'c2', name: 'write', arguments: { path: 'a.txt' } }), tools)[0],
    ).toMatchObject({ title: 'write a.txt', kind: 'edit' });
    expect(
      updatesFor(
        event('tool/result', { callId: 'c2', name: 'write', content: 'Error: no', isError: true }),
        tools,
      ),
    ).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c2',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: 'Error: no' } }],
      },
    ]);
  });

  it('carries the rule of a denied or asked call as _meta["dsh-mode/rule"], and no _meta without one', () => {
    const rule = { selector: 'default', file: '/p/plan.yaml', line: 33, column: 1 };
    const result = { callId: 'c3', name: 'write', content: 'Error: no', isError: true };
    expect(updatesFor(event('tool/result', { ...result, data: { rule } }), tools)).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c3',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: 'Error: no' } }],
        _meta: { 'dsh-mode/rule': rule },
      },
    ]);
    expect(updatesFor(event('tool/result', { ...result, data: {} }), tools)[0]).not.toHaveProperty('_meta');
  });

  it("shows a denial's userReason as its text, and the result's text when the log holds none or junk", () => {
    const result = {
      callId: 'c4',
      name: 'write',
      content: 'Error: call exit_plan_mode first',
      isError: true,
    };
    const textOf = (data: unknown): string =>
      (
        updatesFor(event('tool/result', { ...result, data } as never), tools)[0] as {
          content: { content: { text: string } }[];
        }
      ).content[0]!.content.text;
    expect(textOf({ userReason: '`write` is denied until you approve a plan' })).toBe(
      '`write` is denied until you approve a plan',
    );
    expect(textOf(undefined)).toBe('Error: call exit_plan_mode first');
    expect(textOf({ userReason: 42 })).toBe('Error: call exit_plan_mode first');
    expect(textOf({ userReason: '' })).toBe('Error: call exit_plan_mode first');
    expect(textOf(null)).toBe('Error: call exit_plan_mode first');
  });

  it('sends assistant text unless it was streamed, and nothing for log-only events', () => {
    const message = event('assistant/message', { text: 'Hi', toolCalls: [] });
    expect(updatesFor(message, tools)).toHaveLength(1);
    expect(updatesFor(message, tools, true)).toEqual([]);
    expect(updatesFor(event('mode/set', { mode: 'plan' }), tools)).toEqual([]);
    expect(updatesFor(event('step/end', { step: 1 }), tools)).toEqual([]);
  });

  it('sends reasoning as agent_thought_chunk before the text, each a message with its id, unless it was streamed', () => {
    const message = event('assistant/message', { text: 'Hi', toolCalls: [], reasoning: 'hm\u202e' });
    expect(updatesFor(message, tools)).toEqual([
      {
        sessionUpdate: 'agent_thought_chunk',
        content: { type: 'text', text: 'hm\\u202e' },
        messageId: 'thought-1',
      },
      {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'Hi' },
        messageId: 'assistant-1',
      },
    ]);
    expect(updatesFor(message, tools, true)).toEqual([]);
    expect(chunkUpdates({ kind: 'reasoning', text: 'x' })).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'x' } },
    ]);
    expect(chunkUpdates({ kind: 'text', text: '' })).toEqual([]);
  });
});

describe('noticeUpdates', () => {
  it('is an agent message of its own, marked as the agent’s notice, escaped', () => {
    expect(noticeUpdates('MCP: the server `x\u202e` failed', 'notice-1')).toEqual([
      {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'MCP: the server `x\\u202e` failed' },
        messageId: 'notice-1',
        _meta: { 'dsh-mode/notice': true },
      },
    ]);
  });
});

describe('presentCall', () => {
  it('falls back to a generic card when present() throws on odd arguments', () => {
    const broken = {
      name: 'x',
      present: () => {
        throw new Error('bad');
      },
    } as unknown as Tool;
    expect(presentCall('x', null, () => broken)).toEqual({ title: 'x' });
  });
});

describe('permissionOptions', () => {
  it('offers Approve plan / Keep planning for the exit, Allow once / Reject otherwise', () => {
    expect(permissionOptions('exit_plan_mode').map((o) => [o.kind, o.name])).toEqual([
      ['allow_once', 'Approve plan'],
      ['reject_once', 'Keep planning'],
    ]);
    expect(permissionOptions('write').map((o) => o.name)).toEqual(['Allow once', 'Reject']);
  });
});

describe('promptText', () => {
  it('joins text blocks and names linked resources by URI', () => {
    expect(
      promptText([
        { type: 'text', text: 'Look at' },
        { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
        { type: 'image', data: '', mimeType: 'image/png' },
      ]),
    ).toBe('Look at\n@file:///a.ts');
  });
});
