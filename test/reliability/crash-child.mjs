// Child process of the crash test: a scripted plan-mode session on the built host and engine (dist/), run turn
// after turn until it is killed with SIGKILL. Every event is acknowledged on stdout once its append has written
// it (`ev <seq> <type>`, printed from a session/event listener, after the line is in the file), every landed
// mode as `mode <seq> <mode>`, every finished turn as `turn <seq>`.
// argv: <workspace> <session id> <seed>
import { Context } from 'cordis';
import { applyHost, scriptedModel } from '../../dist/host/index.js';
import { ModePlugin } from '../../dist/engine/index.js';

const [workspace, id, seedText] = process.argv.slice(2);
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
  script.push({ text: 'proposing', tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# Plan\nchange it' } }, { name: 'change' }] });
  script.push({ text: 'working', tool_calls: [{ name: 'change' }] });
  script.push({ text: 'done' });
}
const session = ctx.sessions.create({ id });
const agent = ctx.agents.create({ session, model: scriptedModel(script, { record: false }), options: { mode: 'plan' } });
for (;;) {
  await agent.prompt(`task ${'q'.repeat(Math.floor(random() * 50_000))}`);
  out(`turn ${session.events.length}`);
  // Back to plan for the next task, as a user would.
  if (ctx.modes.get(agent).current !== 'plan') ctx.modes.set(agent, 'plan');
}
