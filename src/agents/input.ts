/**
 * One hook input, read: the agent's JSON (stdin for a command hook, the body of an `http` hook, OpenCode's
 * `(input, output)` pair) turned into the calls dsh-mode decides, through the agent's table (`tables.ts`). Every
 * field the decision needs is checked: a missing session id, a tool name that is not text, a patch that does not
 * parse is an {@link InputError}, which the hook answers with a deny. Fields it does not need are ignored.
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import type { ToolCall } from '../engine/authorize.js';
import { patchChanges, PatchError } from './apply-patch.js';
import { APPLY_PATCH, TOOL_TABLES, type AgentName } from './tables.js';

/** The largest hook input read, in bytes: a `Write` of a large file is refused rather than read without end. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** A hook input that cannot be decided; the hook denies the call with this message. */
export class InputError extends Error {
  override readonly name = 'InputError';
}

/** One decision to make: a call of a dsh-mode tool, and what in it a person would look for in the log. */
export interface MappedCall {
  call: ToolCall;
  /** The command or path the call is about, when it has one. */
  subject?: string;
}

/** A hook input, read. */
export interface AgentInput {
  agent: AgentName;
  /** The agent's session id: the name of the session's journal. */
  session: string;
  /** The folder the session works in: the workspace paths resolve against, where `.dsh/` and `cordis.yml` are. */
  workspace: string;
  /** The agent's own tool name, as the model called it. */
  agentTool: string;
  /** The agent's own mode: Claude Code's `permission_mode`, OpenCode's agent (`plan`, `build`), when known. */
  permissionMode?: string;
  /** The calls to decide: one, or one per file of a patch. All must be allowed for the call to run. */
  calls: MappedCall[];
}

/** The session ids a journal may be named after: the agents' UUIDs and `ses_…` ids, and nothing with a path in it. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The hook event each agent's registration runs on. */
const EVENTS: Readonly<Record<AgentName, string | undefined>> = {
  'claude-code': 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
  opencode: undefined,
};

/**
 * Parses a command hook's input text.
 * @param agent the agent
 * @param text the JSON text
 * @param fallbackCwd where the hook runs, for an input without `cwd`
 * @throws InputError when it is not an input of that agent
 */
export function parseHookText(agent: AgentName, text: string, fallbackCwd: string): AgentInput {
  if (Buffer.byteLength(text) > MAX_INPUT_BYTES)
    throw new InputError(`the hook input is larger than ${MAX_INPUT_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`the hook input is not JSON (${(error as Error).message})`);
  }
  return readInput(agent, value, fallbackCwd);
}

/**
 * Reads a parsed hook input.
 * @param agent the agent
 * @param value the input (for OpenCode: `{input, output}` as its plugin receives them)
 * @param fallbackCwd the folder for an input that names none (OpenCode: the plugin's `directory`)
 * @throws InputError when it is not an input of that agent
 */
export function readInput(agent: AgentName, value: unknown, fallbackCwd: string): AgentInput {
  const input = object(value, 'the hook input');
  if (agent === 'opencode') {
    const call = object(input.input, '`input`');
    const args =
      input.output === undefined ? {} : object(object(input.output, '`output`').args ?? {}, '`output.args`');
    const out = finish(
      agent,
      text(call.sessionID, '`input.sessionID`'),
      fallbackCwd,
      text(call.tool, '`input.tool`'),
      args,
    );
    // The session's OpenCode agent, noted by the plugin from `chat.params` (the tool hook's input has none).
    if (input.agent !== undefined) out.permissionMode = text(input.agent, '`agent`');
    return out;
  }
  const event = EVENTS[agent];
  if (input.hook_event_name !== event)
    throw new InputError(
      `the hook input is for ${JSON.stringify(input.hook_event_name)}, not ${event}: register \`dsh-mode hook ${agent}\` on ${event} only`,
    );
  const cwd = input.cwd === undefined ? fallbackCwd : text(input.cwd, '`cwd`');
  const tool = text(input.tool_name, '`tool_name`');
  const args = input.tool_input === undefined ? {} : object(input.tool_input, '`tool_input`');
  const out = finish(agent, text(input.session_id, '`session_id`'), cwd, tool, args);
  if (agent === 'claude-code' && input.permission_mode !== undefined)
    out.permissionMode = text(input.permission_mode, '`permission_mode`');
  return out;
}

function finish(
  agent: AgentName,
  session: string,
  cwd: string,
  agentTool: string,
  args: Record<string, unknown>,
): AgentInput {
  if (!SESSION_ID.test(session))
    throw new InputError(
      `the session id ${JSON.stringify(session.slice(0, 80))} is not one dsh-mode can name a journal after`,
    );
  if (!isAbsolute(cwd))
    throw new InputError(`the hook input's folder ${JSON.stringify(cwd)} is not absolute`);
  return { agent, session, workspace: resolve(cwd), agentTool, calls: mapCalls(agent, agentTool, args) };
}

/**
 * The dsh-mode calls one agent call stands for.
 * @param agent the agent
 * @param tool the agent's tool name
 * @param args the agent's arguments
 * @returns the calls to decide
 * @throws InputError for an `apply_patch` that does not parse, or an argument of the wrong type
 */
export function mapCalls(agent: AgentName, tool: string, args: Record<string, unknown>): MappedCall[] {
  if (agent === 'codex' && tool === APPLY_PATCH) {
    const patch = args.command ?? args.input ?? args.patch;
    if (typeof patch !== 'string') throw new InputError('the apply_patch input has no patch text');
    try {
      return patchChanges(patch).map((c) => ({
        call: { name: c.tool, arguments: { path: c.path } },
        subject: c.path,
      }));
    } catch (error) {
      if (error instanceof PatchError)
        throw new InputError(`the patch cannot be read, so it is denied: ${error.message}`);
      throw error;
    }
  }
  const row = Object.hasOwn(TOOL_TABLES[agent], tool) ? TOOL_TABLES[agent][tool] : undefined;
  // A tool the table does not know is decided under its own name, with its arguments as they are.
  if (row === undefined) return [{ call: { name: tool, arguments: args } }];
  const mapped: Record<string, unknown> = {};
  for (const [ours, theirs] of Object.entries(row.args)) {
    if (args[theirs] !== undefined) mapped[ours] = args[theirs];
  }
  for (const key of ['command', 'path'] as const) {
    if (mapped[key] !== undefined && typeof mapped[key] !== 'string')
      throw new InputError(`the ${tool} call's \`${row.args[key]}\` is not text`);
  }
  const subject = (mapped.command ?? mapped.path) as string | undefined;
  return [{ call: { name: row.tool, arguments: mapped }, ...(subject === undefined ? {} : { subject }) }];
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputError(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new InputError(`${what} is missing or not text`);
  return value;
}
