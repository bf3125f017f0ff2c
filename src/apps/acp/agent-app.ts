/**
 * The ACP agent (`dsh-mode acp`) over a started deployment, with @agentclientprotocol/sdk 2.x (stable v1 wire).
 *
 * - `session/new` / `session/load`: the session's workspace is the request's `cwd` (tools, and the journal at
 *   `<cwd>/.dsh/sessions/<id>.jsonl`; the ACP session id is the journal id); a `cwd` that is not an existing
 *   folder's absolute path is JSON-RPC invalid params. Both advertise the mode twice, as
 *   `modes: {availableModes, currentModeId}` and as the config option `mode` (`configOptions`, see `modes.ts`);
 *   load replays the history as updates first (the prompts and the narration of mode switches as
 *   `user_message_chunk`) and advertises the folded mode. A session with no journal in that `cwd`, and any request
 *   for a session this connection does not have, is -32002 resource not found.
 * - `session/set_mode` and `session/set_config_option` (`mode`): `ctx.modes.set()`, then `current_mode_update` and
 *   `config_option_update`, written before the answer; an unknown mode is JSON-RPC invalid params carrying the
 *   service's message. The intent is recorded beside the journal before the answer, so a fresh agent process
 *   that loads the session runs its next prompt in that mode. A logged `mode/set` that differs from the last
 *   notified mode is notified again, both ways (the approved exit).
 * - `session/prompt`: streams `agent_message_chunk`, `agent_thought_chunk`, `tool_call`, `tool_call_update`
 *   (`in_progress` once a call is allowed, then its result); answers after every update of the turn was written,
 *   with the stop reason of its `turn/end`. `session/cancel` aborts the turn.
 * - an `ask` becomes `session/request_permission` (see `permission.ts`).
 * - the `mcpServers` of `session/new` / `session/load` start for that session (see `mcp-servers.ts`) and stop when
 *   it closes. Neither request waits for them: a session's prompt does (a cancel ends that wait), so its first
 *   step sees their tools. A server left out (it crashed, hung past its start limit, has no such command) is told
 *   to the client as an `agent_message_chunk` of its own (`_meta["dsh-mode/notice"]`), as soon as it is known.
 * @module
 */
import { lstatSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { modeOfSet } from '../../engine/fold.js';
import type { Session, SessionEvent, SessionEventMap } from '../../host/types.js';
import type { Runtime } from '../runtime-types.js';
import { visible } from '../visible.js';
import { closeSessionServers, openSessionServers } from './mcp-servers.js';
import { configOptions, modeState, requestedMode, requestMode, shownMode } from './modes.js';
import { askClient } from './permission.js';
import { AcpSession } from './session-state.js';
import { chunkUpdates, inProgress, noticeUpdates, updatesFor, type ToolLookup } from './updates.js';

const STOP: Record<SessionEventMap['turn/end']['reason'], acp.StopReason | null> = {
  done: 'end_turn',
  'max-steps': 'max_turn_requests',
  cancelled: 'cancelled',
  error: null,
};

/**
 * Builds the agent app for one connection.
 * @param runtime the started deployment
 * @param version the package version, reported in `agentInfo`
 * @returns the app (call `connect(stream)`) and a disposer for its host listeners and sessions
 */
export function createAcpAgent(runtime: Runtime, version: string): { app: acp.AgentApp; dispose(): void } {
  const { ctx } = runtime;
  const sessions = new Map<string, AcpSession>();
  const bySession = new Map<Session, AcpSession>();
  const tools: ToolLookup = (name) => ctx.tools.get(name);
  const disposers: (() => void)[] = [];
  /** Numbers the notices of this connection, so each is its own message for the client. */
  let notices = 0;

  disposers.push(
    ctx.on(
      'session/event',
      async (session: Session, event: SessionEvent, next: () => Promise<void>) => {
        const state = bySession.get(session);
        if (state) onEvent(state, event);
        return next();
      },
      { prepend: true },
    ),
  );
  // An allowed call is about to run: `in_progress` (an asked one gets it from the answerer once approved).
  disposers.push(
    ctx.on('tools/verdict', (exec, verdict) => {
      const state = exec.agent && bySession.get(exec.agent.session);
      if (state && verdict.kind === 'allow') state.send(inProgress(exec.callId));
    }),
  );
  disposers.push(
    ctx.on('approval/request', async (request, next) => {
      const state = [...sessions.values()].find((s) => s.agent === request.agent);
      return state ? askClient(state, request, tools) : next();
    }),
  );

  function onEvent(state: AcpSession, event: SessionEvent): void {
    if (event.type === 'mode/set') {
      state.notifyMode(modeOfSet(event.data));
      return;
    }
    // The client shows its own prompt and the mode updates; user-role messages (the prompt, a mode switch's
    // narration) go out only when a loaded history is replayed.
    if (event.type === 'user/message' || event.type === 'context/message') return;
    for (const update of updatesFor(event, tools, state.streamedStep)) state.send(update);
    if (event.type === 'assistant/message') state.streamedStep = false;
  }

  /** What `session/new` and `session/load` advertise: the mode both ways (nothing without modes). */
  function advertised(
    state: AcpSession,
  ): { modes: acp.SessionModeState; configOptions: acp.SessionConfigOption[] } | Record<string, never> {
    const modes = runtime.modes;
    if (!modes) return {};
    const current = shownMode(modes, state.agent);
    state.lastMode = current;
    return { modes: modeState(modes, current), configOptions: configOptions(modes, current) };
  }

  function open(
    id: string,
    cwd: string,
    session: Session,
    connectionClient: acp.AgentContext,
    mode?: string,
  ): AcpSession {
    const agent = runtime.createAgent({
      session,
      workspace: cwd,
      ...(mode !== undefined ? { options: { mode } } : {}),
      onChunk: (chunk) => {
        if (chunk.text === '') return;
        state.streamedStep = true;
        for (const update of chunkUpdates(chunk)) state.send(update);
      },
    });
    const modes = runtime.modes;
    const options = modes ? (current: string) => configOptions(modes, current) : undefined;
    const state = new AcpSession(id, cwd, agent, connectionClient, options);
    sessions.set(id, state);
    bySession.set(session, state);
    return state;
  }

  /** Starts the client's servers for a session without holding the request; what is left out is told. */
  function startServers(state: AcpSession, servers: readonly acp.McpServer[] | undefined): void {
    state.servers = openSessionServers(ctx, state.agent.session, servers, state.cwd).then((warnings) => {
      for (const warning of warnings) {
        for (const update of noticeUpdates(`MCP: ${warning}`, `notice-${++notices}`)) state.send(update);
      }
    });
  }

  function close(state: AcpSession): void {
    state.turn?.abort();
    sessions.delete(state.id);
    bySession.delete(state.agent.session);
    void closeSessionServers(ctx, state.agent.session);
    (state.agent.session as { close?: () => void }).close?.();
  }

  function lookup(sessionId: string): AcpSession {
    const state = sessions.get(sessionId);
    if (!state) throw sessionNotFound(sessionId);
    return state;
  }

  /** A user's mode choice from either setter: the same rules, and both updates for the client. */
  function setMode(state: AcpSession, mode: string, data: Record<string, unknown>): void {
    requestMode(runtime.modes, state.agent, mode, data);
    // Optimistic: the pending intent is the user's choice, recorded beside the journal before set() returned (so
    // it survives a restart of this process); the logged mode/set lands at the next boundary.
    state.notifyMode(mode);
  }

  const app = acp
    .agent({ name: 'dsh-mode' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: {} },
      agentInfo: { name: 'dsh-mode', version },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, client: c }) => {
      checkCwd(params.cwd);
      const session = runtime.ctx.sessions.create({ dir: sessionsDir(params.cwd) });
      const state = open(session.id, params.cwd, session, c, runtime.startMode);
      startServers(state, params.mcpServers);
      return { sessionId: session.id, ...advertised(state) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client: c }) => {
      checkCwd(params.cwd);
      if (!SESSION_ID.test(params.sessionId)) {
        throw acp.RequestError.invalidParams({ sessionId: params.sessionId }, 'not a dsh-mode session id');
      }
      const file = join(sessionsDir(params.cwd), `${params.sessionId}.jsonl`);
      if (!exists(file)) throw sessionNotFound(params.sessionId);
      const existing = sessions.get(params.sessionId);
      if (existing) close(existing);
      let session: Session;
      try {
        session = await runtime.ctx.sessions.resume(file);
      } catch (error) {
        throw acp.RequestError.invalidParams({ sessionId: params.sessionId }, (error as Error).message);
      }
      const state = open(params.sessionId, params.cwd, session, c);
      startServers(state, params.mcpServers);
      // mode/set is told by the advertised mode; narration (context/message) replays as the user-role
      // message the model saw.
      for (const event of session.events) {
        if (event.type !== 'mode/set') for (const update of updatesFor(event, tools)) state.send(update);
      }
      const shown = advertised(state);
      await state.flush();
      return shown;
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const state = lookup(params.sessionId);
      setMode(state, params.modeId, { modeId: params.modeId });
      // The updates go out before the answer, so a client never sees them contradict it.
      await state.flush();
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
      const state = lookup(params.sessionId);
      const mode = requestedMode(params);
      setMode(state, mode, { configId: params.configId, value: mode });
      const modes = runtime.modes!;
      await state.flush();
      return { configOptions: configOptions(modes, shownMode(modes, state.agent)) };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const state = lookup(params.sessionId);
      if (state.turn)
        throw acp.RequestError.invalidRequest({ sessionId: state.id }, 'a prompt is already running');
      const text = promptText(params.prompt);
      const turn = new AbortController();
      state.turn = turn;
      try {
        // The client's servers still starting: their tools belong in the first step (a cancel stops the wait).
        await Promise.race([state.servers, aborted(turn.signal)]);
        if (turn.signal.aborted) {
          await state.flush();
          return { stopReason: 'cancelled' };
        }
        const outcome = await state.agent.prompt(text, { signal: turn.signal });
        await state.flush();
        const stop = turn.signal.aborted ? 'cancelled' : STOP[outcome.reason];
        if (stop === null) {
          const end = state.agent.session.events.findLast(
            (e): e is SessionEvent<'turn/end'> => e.type === 'turn/end',
          );
          const detail = end?.data.error ?? 'the turn failed';
          // The error text may quote the model or its server: one escaped line, bounded.
          throw acp.RequestError.internalError(
            { sessionId: state.id },
            visible(detail.slice(0, 2000), 'line'),
          );
        }
        return { stopReason: stop };
      } finally {
        state.turn = null;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    });

  return {
    app,
    dispose() {
      for (const state of [...sessions.values()]) close(state);
      for (const dispose of disposers.splice(0)) dispose();
    },
  };
}

/** Resolves when the signal aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** ACP's answer for a session this agent does not have: -32002 resource not found, naming the id. */
function sessionNotFound(sessionId: string): acp.RequestError {
  // The SDK's sessionNotFound() with the id in the message too (escaped and bounded: it is the client's text).
  const shown = visible(String(sessionId).slice(0, 200), 'line');
  return new acp.RequestError(-32002, `Resource not found: no session \`${shown}\``, { sessionId });
}

/** True when something is at `file` (a link counts: the resume refuses it with its own message). */
function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

/** Where an ACP session's journal lives: under its `cwd`. */
function sessionsDir(cwd: string): string {
  return join(cwd, '.dsh', 'sessions');
}

/**
 * ACP requires `cwd` to be an absolute path; it becomes the session's workspace, so it must also be an existing
 * folder (a relative one would resolve against the agent's own folder, a missing one would be created).
 * @throws JSON-RPC invalid params saying what is wrong
 */
function checkCwd(cwd: unknown): asserts cwd is string {
  const shown = JSON.stringify(cwd) ?? String(cwd);
  let problem: string | undefined;
  if (typeof cwd !== 'string' || cwd === '')
    problem = '`cwd` is missing or empty; ACP requires an absolute path';
  else if (!isAbsolute(cwd)) problem = `\`cwd\` must be an absolute path, got ${shown}`;
  else {
    try {
      if (!statSync(cwd).isDirectory()) problem = `\`cwd\` ${shown} is not a directory`;
    } catch (error) {
      // ENOENT, ENOTDIR (a file on the way), EACCES, a NUL byte: not a folder this agent can work in.
      const code = (error as { code?: string }).code;
      problem = `\`cwd\` ${shown} ${code === 'ENOENT' ? 'does not exist' : `cannot be used (${code ?? 'unreadable'})`}`;
    }
  }
  if (problem) throw acp.RequestError.invalidParams({ cwd: cwd ?? null }, problem);
}

/** A journal id (the host's rule): no path separators, so a loaded id never names a file elsewhere. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The user's text of a prompt: text blocks joined, links and resources named by their URI. */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'resource_link') parts.push(`@${block.uri}`);
    else if (block.type === 'resource') parts.push(`@${block.resource.uri}`);
  }
  return parts.join('\n');
}
