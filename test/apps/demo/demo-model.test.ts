/**
 * The demo model (src/apps/demo/script.ts) answers from what happened: the results of its last calls, the tools it
 * is offered and the mode the system prompt names. Each branch on its own request; chat.test.ts and
 * chat-in-process.test.ts run the walk-through whole, and explore.test.ts the exploration of a project.
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
const called = (name: string, args: Record<string, unknown> = {}, callId = 'c'): ModelMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ callId, name, arguments: args }],
});
const result = (
  name: string,
  isError: boolean,
  content = isError ? 'Error: no' : 'ok',
  callId = 'c',
): ModelMessage => ({
  role: 'tool',
  callId,
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

describe('demoReply outside the walk-through: it explores the folder it runs in', () => {
  const ask = 'Plan a README for src/';
  const listed = (path: string, content: string, id: string) => [
    called('list', { path }, id),
    result('list', false, content, id),
  ];
  const read = (path: string, content: string) => [
    called('read', { path }, 'r'),
    result('read', false, content, 'r'),
  ];
  const next = (messages: ModelMessage[], tools = PLAN_TOOLS) => demoReply(request(messages, tools));

  it('says it is the demo, then lists the folder, the folder the request names, and reads a file there', () => {
    const start = next([user(ask)]);
    expect(start.text).toMatch(/^I'm the demo model, a fixed script and not a real model/);
    expect(start.text).toContain("I'm in plan mode.");
    expect(start.toolCalls).toEqual([{ name: 'list', arguments: { path: '.' } }]);
    const root = listed('.', '.dsh/\nREADME.md\nnode_modules/\nsrc/', 'l1');
    expect(next([user(ask), ...root]).toolCalls).toEqual([{ name: 'list', arguments: { path: 'src' } }]);
    const inside = listed('src', 'app.js\nlib/', 'l2');
    expect(next([user(ask), ...root, ...inside]).toolCalls).toEqual([
      { name: 'read', arguments: { path: 'src/app.js' } },
    ]);
    // Without a folder named, a README at the root is read; nothing under .dsh/ or node_modules/ is offered.
    expect(next([user('What is here?'), ...root]).toolCalls).toEqual([
      { name: 'read', arguments: { path: 'README.md' } },
    ]);
  });

  it('proposes a plan that says what it found, and never writes', () => {
    const messages = [
      user(ask),
      ...listed('.', '.dsh/\nREADME.md\nsrc/', 'l1'),
      ...listed('src', 'app.js', 'l2'),
      ...read('src/app.js', 'export const app = 1;\n'),
    ];
    const reply = next(messages);
    expect(reply.toolCalls.map((c) => c.name)).toEqual(['exit_plan_mode']);
    const plan = (reply.toolCalls[0]!.arguments as { plan: string }).plan;
    expect(plan).toMatch(/^# Demo plan: Plan a README for src\//);
    expect(plan).toContain('This folder holds `README.md`, `src/`.');
    expect(plan).toContain('`src/` holds `app.js`.');
    expect(plan).toContain('`src/app.js` has 1 line, starting `export const app = 1;`.');
    expect(plan).toContain('A real model would plan the work you asked for: set DEEPSEEK_API_KEY');
    const approved = next([
      ...messages,
      called('exit_plan_mode', {}, 'x'),
      result('exit_plan_mode', false, 'ok', 'x'),
    ]);
    expect(approved.toolCalls).toEqual([]);
    expect(approved.text).toContain('the demo changes nothing in your files');
    const rejected = next([
      ...messages,
      called('exit_plan_mode', {}, 'x'),
      result('exit_plan_mode', true, 'Error: no', 'x'),
    ]);
    expect(rejected).toMatchObject({ toolCalls: [] });
    expect(rejected.text).toContain('The plan was not approved, so I change nothing and stay in plan mode.');
  });

  it('reports what it found where it cannot propose a plan, and stops on a refused call', () => {
    const audit = ['read', 'list', 'grep', 'write'].map(tool);
    const messages = [user('Audit this'), ...listed('.', 'notes.txt', 'l1'), ...read('notes.txt', 'a\nb\n')];
    const reply = next(messages, audit);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toBe(
      'This folder holds `notes.txt`. `notes.txt` has 2 lines, starting `a`. That is all the demo does: it ' +
        'changes nothing (for a real model, set DEEPSEEK_API_KEY or name one in cordis.yml (`- name: openai`)).',
    );
    const refused = next(
      [user('Audit this'), called('list', { path: '.' }), result('list', true, 'Error: denied')],
      audit,
    );
    expect(refused).toEqual({ text: 'I could not list `.` (denied), so I stop here.', toolCalls: [] });
    expect(next([user('x')], [tool('read')]).text).toContain('This mode offers me no `list`, so I stop.');
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
