/**
 * Shared engine test setup: the host setup of `../host/setup.ts` (a real cordis Context with the real host plugins
 * on a fresh temporary workspace, and a logger exporter that collects warnings and errors) with the real mode
 * plugin on top. Nothing is faked but the model (the host's scripted model) and, where a test says so, the approval
 * answerer (a real `approval/request` listener).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Fiber } from 'cordis';
import { ModePlugin, type ModeConfig } from '../../src/engine/index.js';
import {
  scriptedModel,
  type AgentOptions,
  type AssembleContext,
  type Assembly,
  type ApprovalOutcome,
  type ApprovalRequest,
  type ScriptEntry,
  type SessionEvent,
  type Session,
} from '../../src/host/index.js';
import { setup as hostSetup, tempDir as hostTempDir, type HostSetup } from '../host/setup.js';

export interface EngineSetup extends HostSetup {
  /** The mode plugin's fiber (undefined with `plugin: false`). */
  fiber: Fiber | undefined;
}

/** A temporary folder (realpath, so paths compare like with like). */
export function tempDir(prefix = 'dsh-engine-'): string {
  return hostTempDir(prefix);
}

/**
 * The host, and the mode plugin unless `plugin: false`.
 * @param options `config` of the mode plugin; `plugin: false` for a deployment without it
 */
export async function setup(
  options: { config?: ModeConfig; plugin?: boolean; workspace?: string } = {},
): Promise<EngineSetup> {
  const host = await hostSetup({ workspace: options.workspace ?? tempDir() });
  const fiber =
    options.plugin === false ? undefined : await host.ctx.plugin(ModePlugin, options.config ?? {});
  return { ...host, fiber };
}

/** A `system-prompt/assemble` listener, as tests write them (`satisfies AssembleListener`). */
export type AssembleListener = (
  assembly: Assembly,
  context: AssembleContext,
  next: () => Promise<Assembly>,
) => Promise<Assembly>;

/** A new agent on an in-memory session (or the given one) with a scripted model. */
export function agentOf(ctx: Context, script: ScriptEntry[], options: AgentOptions = {}, session?: Session) {
  const model = scriptedModel(script);
  const agent = ctx.agents.create({
    session: session ?? ctx.sessions.create({ inMemory: true }),
    model,
    options,
  });
  return { agent, model };
}

/** Answers every approval question with `outcome`, recording the requests. */
export function answerApprovals(ctx: Context, outcome: ApprovalOutcome): ApprovalRequest[] {
  const asked: ApprovalRequest[] = [];
  ctx.on('approval/request', async (request) => {
    asked.push(request);
    return outcome;
  });
  return asked;
}

/** The event types of a log. */
export const types = (events: readonly SessionEvent[]): string[] => events.map((event) => event.type);

/** The events of one type. */
export function eventsOf<K extends SessionEvent['type']>(
  events: readonly SessionEvent[],
  type: K,
): SessionEvent<K>[] {
  return events.filter((event): event is SessionEvent<K> => event.type === type);
}

/** The tool result of a call, by tool name and occurrence. */
export function resultOf(events: readonly SessionEvent[], name: string, nth = 0) {
  return eventsOf(events, 'tool/result').filter((event) => event.data.name === name)[nth]?.data;
}

/** The built-in plan policy's file, as the engine names it in a rule. */
export const PLAN_FILE = join(import.meta.dirname, '../../policies/plan.yaml');

/**
 * The rule of the built-in plan policy written as `key:` at the start of a line (indented two spaces under
 * `tools:`, or at the top for `default`), with its file:line:column found in the file's own text.
 * @param selector `default` or a tool selector of plan.yaml
 */
export function planRule(selector: string): { selector: string; file: string; line: number; column: number } {
  const lines = readFileSync(PLAN_FILE, 'utf8').split('\n');
  const key = selector === 'default' ? 'default:' : `  ${selector}:`;
  const index = lines.findIndex((line) => line.startsWith(key));
  if (index === -1) throw new Error(`plan.yaml has no rule \`${selector}\``);
  return { selector, file: PLAN_FILE, line: index + 1, column: lines[index]!.indexOf(selector) + 1 };
}
