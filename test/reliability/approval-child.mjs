// Child process of the hostile-journal crash check: a plan-mode session on the built host and engine (build.ts)
// whose model asks, in one batch, for a read-only `look`, `exit_plan_mode` and a `change`. The approval question
// is never answered: the child prints `asked <callId>` (after `approval/asked` is in the log) and waits there
// until the test kills it (SIGKILL or SIGHUP).
// argv: <built folder (see build.ts)> <workspace> <session id>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context } from 'cordis';

const [built, workspace, id] = process.argv.slice(2);
const { applyHost, scriptedModel } = await import(pathToFileURL(join(built, 'host/index.js')).href);
const { ModePlugin } = await import(pathToFileURL(join(built, 'engine/index.js')).href);

const ctx = new Context();
await applyHost(ctx, { workspace, builtinTools: false });
await ctx.plugin(ModePlugin, {});
const probe = (name, annotations) => ({
  name,
  description: name,
  parameters: { type: 'object' },
  ...(annotations ? { annotations } : {}),
  execute: () => ({ content: `${name} ran` }),
});
ctx.tools.register(probe('look', { readOnlyHint: true }));
ctx.tools.register(probe('change'));
ctx.on('approval/request', (request) => {
  process.stdout.write(`asked ${request.callId}\n`);
  // Never answered; the timer keeps the process alive until the kill.
  setInterval(() => {}, 1 << 30);
  return new Promise(() => {});
});

const session = ctx.sessions.create({ id });
const model = scriptedModel([
  {
    text: 'Looking, then proposing.',
    tool_calls: [
      { name: 'look' },
      { name: 'exit_plan_mode', arguments: { plan: '# Plan\nchange it' } },
      { name: 'change' },
    ],
  },
]);
const agent = ctx.agents.create({ session, model, options: { mode: 'plan' } });
await agent.prompt('plan the change');
process.stdout.write('the turn ended without the kill\n');
