// Child process of the crash test: a scripted plan-mode session on the built host and engine (build.ts), run turn
// after turn until it is killed with SIGKILL. Every event is acknowledged on stdout once its append has written
// it (`ev <seq> <type>`, printed from a session/event listener, after the line is in the file), every landed
// mode as `mode <seq> <mode>`, every finished turn as `turn <seq>`.
// argv: <built folder (see build.ts)> <workspace> <session id> <seed>
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context } from 'cordis';

const [built, workspace, id, seedText] = process.argv.slice(2);
const { applyHost, scriptedModel } = await import(pathToFileURL(join(built, 'host/index.js')).href);
const { ModePlugin } = await import(pathToFileURL(join(built, 'engine/index.js')).href);
let state = Number(seedText) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const ctx = new Context();
await applyHost(ctx, { workspace, builtinTools: false });
await ctx.plugin(ModePlugin, {});
const probe = (name, annotations) => ({
  name,
  description: name,
  parameters: { type: 'object' },
  ...(annotations ? { annotations } : {}),
  execute: () => ({ content: `${name} ran ${'z'.repeat(Math.floor(random() * 20_000))}` }),
});
ctx.tools.register(probe('look', { readOnlyHint: true }));
ctx.tools.register(probe('change'));
// Answers approvals after a random short wait, approving about half of them.
ctx.on('approval/request', async () => {
  await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
  return random() < 0.5 ? { outcome: 'allowed-once' } : { outcome: 'rejected', feedback: 'not yet' };
});
const out = (line) => process.stdout.write(line + '\n');
ctx.on('session/event', async (_session, event, next) => {
  await next();
  out(`ev ${event.seq} ${event.type}`);
  if (event.type === 'mode/set') out(`mode ${event.seq} ${event.data.mode}`);
});

const script = [];
for (let i = 0; i < 20_000; i++) {
  script.push({ text: 'looking', tool_calls: [{ name: 'look' }, { name: 'change' }] });
  script.push({
    text: 'proposing',
    tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# Plan\nchange it' } }, { name: 'change' }],
  });
  script.push({ text: 'working', tool_calls: [{ name: 'change' }] });
  script.push({ text: 'done' });
}
// A session that an earlier (killed) child left behind is resumed and continued: crashes accumulate in one log.
const resuming = existsSync(join(workspace, '.dsh', 'sessions', `${id}.jsonl`));
const session = resuming ? await ctx.sessions.resume(id) : ctx.sessions.create({ id });
const model = scriptedModel(script, { record: false });
const agent = ctx.agents.create({ session, model, options: resuming ? {} : { mode: 'plan' } });
if (ctx.modes.get(agent).current !== 'plan') ctx.modes.set(agent, 'plan');
for (;;) {
  await agent.prompt(`task ${'q'.repeat(Math.floor(random() * 50_000))}`);
  out(`turn ${session.events.length}`);
  // Back to plan for the next task, as a user would.
  if (ctx.modes.get(agent).current !== 'plan') ctx.modes.set(agent, 'plan');
}
