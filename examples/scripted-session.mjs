// Runs a full scripted session on the real loop with the built-in tools, in a fresh temporary workspace, and
// prints the story and where its session.jsonl is. `npm run build` first (it imports dist/); tests point
// DSH_HOST_MODULE at their own build of src/host.
//
//   node examples/scripted-session.mjs
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context } from 'cordis';

const hostModule = process.env.DSH_HOST_MODULE
  ? pathToFileURL(process.env.DSH_HOST_MODULE).href
  : new URL('../dist/host/index.js', import.meta.url).href;
const { applyHost, scriptedModel } = await import(hostModule);

const workspace = mkdtempSync(join(tmpdir(), 'dsh-example-'));
writeFileSync(join(workspace, 'README.md'), '# Demo\n\nA tiny project.\nStatus: draft\n');

const ctx = new Context();
await applyHost(ctx, { workspace });
ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'You are a careful coding agent.' });
// A small policy: bash asks first, and this script's "user" approves.
ctx.on('tools/pre-execute', async (exec, next) =>
  exec.name === 'bash' ? { kind: 'ask', reason: 'runs a command' } : next(),
);
ctx.on('approval/request', async () => ({ outcome: 'allowed-once' }));

const model = scriptedModel([
  {
    text: 'Looking first.',
    tool_calls: [
      {
        name: 'todo_write',
        arguments: { todos: [{ content: 'Mark the README final', status: 'in_progress' }] },
      },
      { name: 'read', arguments: { path: 'README.md' } },
      { name: 'list', arguments: {} },
    ],
  },
  {
    text: 'Updating the status.',
    tool_calls: [
      {
        name: 'edit',
        arguments: { path: 'README.md', old_string: 'Status: draft', new_string: 'Status: final' },
      },
    ],
  },
  {
    text: 'Checking and noting it.',
    tool_calls: [
      { name: 'grep', arguments: { pattern: 'Status' } },
      { name: 'write', arguments: { path: 'NOTES.md', content: 'README marked final.\n' } },
      { name: 'bash', arguments: { command: 'wc -l README.md NOTES.md' } },
      {
        name: 'todo_write',
        arguments: { todos: [{ content: 'Mark the README final', status: 'completed' }] },
      },
    ],
  },
  { text: 'Done: the README is final and NOTES.md records it.' },
]);

const session = ctx.sessions.create();
const agent = ctx.agents.create({ session, model });
const outcome = await agent.prompt('Mark the README as final and note it.');
session.close();

for (const event of session.events) {
  const data = JSON.stringify(event.data);
  console.log(
    `${String(event.seq).padStart(3)} ${event.type.padEnd(22)} ${data.length > 90 ? data.slice(0, 87) + '...' : data}`,
  );
}
console.log(`\nturn ended: ${outcome.reason}; ${outcome.text}`);
console.log(`session log: ${session.file}`);
