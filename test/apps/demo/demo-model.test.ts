/**
 * The demo model (src/apps/demo/script.ts) answers from what happened: the results of its last calls, the tools it
 * is offered and the mode the system prompt names. Each branch on its own request; chat.test.ts and
 * chat-in-process.test.ts run it whole.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_ONLY, DEMO_PROMPT, demoModel, demoReply } from '../../../src/apps/demo/script.js';
import type { ModelMessage, ToolSchema } from '../../../src/host/types.js';

const tool = (name: string): ToolSchema => ({ name, description: name, parameters: { type: 'object' } });
const PLAN_TOOLS = ['read', 'list', 'exit_plan_mode'].map(tool);
const PLAN_SYSTEM = '# Plan mode\n\nYou are in plan mode. Explore the workspace.';

function request(messages: ModelMessage[], tools = PLAN_TOOLS, system = PLAN_SYSTEM) {
  return { header: { system, tools }, messages };
}
const user = (content: string): ModelMessage => ({ role: 'user', content });
const called = (name: string): ModelMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ callId: 'c', name, arguments: {} }],
});
const result = (name: string, isError: boolean, content = isError ? 'Error: no' : 'ok'): ModelMessage => ({
  role: 'tool',
  callId: 'c',
  name,
  content,
  isError,
});

describe('demoReply', () => {
  it('names the mode only when the system prompt does', () => {
    expect(demoReply(request([user(DEMO_PROMPT)])).text).toBe(
      "I'm in plan mode, so I'll look around before changing anything.",
    );
    expect(demoReply(request([user(DEMO_PROMPT)], PLAN_TOOLS, '')).text).toBe(
      "I'll look around before changing anything.",
    );
    const undefinedMode =
      'This session is in review mode, which this deployment does not define, so every tool is denied.';
    expect(demoReply(request([user(DEMO_PROMPT)], [], undefinedMode)).text).toContain("I'm in review mode");
  });

  it('proposes a plan only when its write was denied and exit_plan_mode is offered', () => {
    const denied = [user(DEMO_PROMPT), called('write'), result('write', true)];
    expect(demoReply(request(denied)).toolCalls.map((c) => c.name)).toEqual(['exit_plan_mode']);
    const noExit = demoReply(request(denied, [tool('read')]));
    expect(noExit.toolCalls).toEqual([]);
    expect(noExit.text).toBe(
      'The write was refused (no), and I have no way to ask for approval here, so I stop.',
    );
    const allowed = demoReply(request([user(DEMO_PROMPT), called('write'), result('write', false)]));
    expect(allowed.toolCalls).toEqual([]);
    expect(allowed.text).toContain('The write went through');
  });

  it('edits only after an approved plan, and says Done only after the edit worked', () => {
    const approved = [user(DEMO_PROMPT), called('exit_plan_mode'), result('exit_plan_mode', false)];
    expect(demoReply(request(approved)).toolCalls.map((c) => c.name)).toEqual(['edit']);
    const rejected = demoReply(
      request([user(DEMO_PROMPT), called('exit_plan_mode'), result('exit_plan_mode', true)]),
    );
    expect(rejected.toolCalls).toEqual([]);
    expect(rejected.text).toContain('The plan was not approved, so I change nothing and stay in plan mode.');
    const failed = demoReply(
      request([
        user(DEMO_PROMPT),
        called('edit'),
        result('edit', true, 'Error: old_string was not found in src/greet.js'),
      ]),
    );
    expect(failed.text).toBe(
      'The edit did not happen (old_string was not found in src/greet.js): src/greet.js is unchanged.',
    );
    expect(failed.text).not.toContain('Done');
    expect(demoReply(request([user(DEMO_PROMPT), called('edit'), result('edit', false)])).text).toMatch(
      /^Done: /,
    );
  });

  it('answers a later message with what it is, and calls nothing', () => {
    const later = demoReply(
      request([user(DEMO_PROMPT), { role: 'assistant', content: 'Done.', toolCalls: [] }, user('more?')]),
    );
    expect(later).toEqual({ text: DEMO_ONLY, toolCalls: [] });
  });
});

describe('demoModel', () => {
  it('streams its text in chunks and refuses an aborted request', async () => {
    const model = demoModel();
    const chunks: string[] = [];
    const reply = await model.complete(request([user(DEMO_PROMPT)]), (chunk) => chunks.push(chunk.text));
    expect(chunks.join('')).toBe(reply.text);
    expect(chunks.length).toBeGreaterThan(1);
    const controller = new AbortController();
    controller.abort();
    await expect(
      model.complete({ ...request([user(DEMO_PROMPT)]), signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});
