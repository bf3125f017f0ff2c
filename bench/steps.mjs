// Shared by engine.bench.mjs and host.bench.mjs: a deployment with a no-op tool, and step contenders (each a
// `{ name, run(n) }` for lib.mjs's interleave). Not a bench file itself.
import { Context, symbols } from 'cordis';
import { applyHost, scriptedModel } from '../dist/host/index.js';
import { ModePlugin } from '../dist/engine/index.js';
import { consume } from './lib.mjs';

/** A no-op read-only tool: plan allows it by its effects rule, so every configuration runs it. */
const noop = {
  name: 'noop',
  description: 'Does nothing.',
  parameters: { type: 'object', additionalProperties: false },
  annotations: { readOnlyHint: true },
  execute: () => ({ content: 'ok' }),
};

export async function deployment(workspace, plugin) {
  const ctx = new Context();
  await applyHost(ctx, { workspace });
  ctx.tools.register(noop);
  ctx.systemPrompt.section({ name: 'persona', order: 0, text: 'You are a benchmark.' });
  if (plugin) await ctx.plugin(ModePlugin, {});
  return ctx;
}

/**
 * Registers a do-nothing hook on each seam the mode engine uses, through the public API: a guard that allows, a
 * view that keeps every tool, an empty section, a `session/event` listener that passes every event on, and an
 * `agent/created` listener. What a step pays for them is the host's dispatch alone, the floor of any such plugin.
 */
export function nullHooks(ctx) {
  const allow = Object.freeze({ kind: 'allow' });
  ctx.tools.guard(() => allow);
  ctx.systemPrompt.view({ key: () => 'all', keep: () => true });
  ctx.systemPrompt.section({ name: 'null', order: 50, text: () => '' });
  ctx.on('session/event', (_session, _event, next) => next());
  ctx.on('agent/created', () => {});
}

export const stepScript = (steps) => {
  const script = [];
  for (let i = 0; i < steps - 1; i++)
    script.push({ text: 's', tool_calls: [{ name: 'noop', arguments: {} }] });
  script.push({ text: 'done' });
  return script;
};

/** A contender that runs `n` steps as turns of `perTurn` steps, each turn on a fresh in-memory session. */
export function stepper(name, ctx, mode, perTurn = 20) {
  // Resolved once, as the host resolves its own services: each `ctx.agents` through cordis's context, and each
  // method read through its service proxy, costs microseconds (cordis makes an Error to throw should the service
  // be missing), which would time cordis once per turn rather than the steps.
  const agents = ctx.agents[symbols.original] ?? ctx.agents;
  const sessions = ctx.sessions[symbols.original] ?? ctx.sessions;
  return {
    name,
    async run(n) {
      for (let done = 0; done < n; done += perTurn) {
        const steps = Math.min(perTurn, n - done);
        const agent = agents.create({
          session: sessions.create({ inMemory: true }),
          model: scriptedModel(stepScript(steps), { record: false }),
          options: { maxSteps: steps, ...(mode ? { mode } : {}) },
        });
        const outcome = await agent.prompt('go');
        if (outcome.reason !== 'done') throw new Error(`bench turn ended ${outcome.reason}`);
      }
    },
  };
}

/**
 * The floor of one step: the same work with no framework. Append the step's events as JSON lines (in memory, as
 * the in-memory session does), build the request from an array, and "run" the tool.
 */
export function floorStepper() {
  const tools = [{ name: noop.name, description: noop.description, parameters: noop.parameters }];
  return {
    name: 'floor',
    run(n) {
      const lines = [];
      const messages = [{ role: 'user', content: 'go' }];
      let seq = 0;
      const append = (type, data) =>
        lines.push(JSON.stringify({ seq: ++seq, type, data, time: new Date().toISOString() }));
      for (let i = 0; i < n; i++) {
        const request = { system: 'You are a benchmark.', messages, tools };
        consume(request.messages.length);
        const call = { id: `c${i}`, name: 'noop', arguments: {} };
        append('model/response', { text: 's', tool_calls: [call] });
        messages.push({ role: 'assistant', content: 's', tool_calls: [call] });
        append('tool/call', call);
        const result = noop.execute();
        append('tool/result', { id: call.id, content: result.content });
        messages.push({ role: 'tool', id: call.id, content: result.content });
      }
      consume(lines.length);
    },
  };
}
