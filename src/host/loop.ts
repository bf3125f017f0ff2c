/**
 * The agent loop: one `prompt()` is one turn. It appends `turn/start` and `user/message`, then runs steps:
 * `step/start`, assemble (`system-prompt/assemble` with `{agent}`), log the header (full at the agent's first
 * request, `resume` when the session came from an earlier run; then a delta, a `fallback` full header, or
 * nothing), the model request with the transcript rebuilt from surface events, `assistant/message`, each call of
 * the batch in order as `tool/call` + `tool/result`, `step/end`. The turn ends (`turn/end`) `done` when the model
 * answers without tool calls, `max-steps` at the step limit, `cancelled` on abort (a running tool gets the
 * signal; calls not yet run get a cancelled result, so every call has its result), `error` when the assembly or
 * the model fails. Every step that started is closed with `step/end`.
 * @module
 */
import type { Context } from 'cordis';
import { describeError } from './contain.js';
import { sealedJson } from './frozen-json.js';
import { applyDelta, planHeaderLog } from './headers.js';
import { TranscriptBuilder } from './transcript.js';
import type {
  Agent,
  AgentOptions,
  Model,
  ModelChunk,
  ModelMessage,
  ModelResponse,
  RequestHeader,
  Session,
  SessionEventMap,
  ToolCallRequest,
  TurnOutcome,
} from './types.js';

/** Default upper bound on model requests in one turn. */
export const DEFAULT_MAX_STEPS = 25;

type EndReason = SessionEventMap['turn/end']['reason'];

/** What the loop needs beyond the public `Agent` fields. */
export interface LoopAgentInit {
  id: string;
  session: Session;
  model: Model;
  options: AgentOptions;
  workspace?: string;
  /** Streamed answer text, as it arrives (a UI prints it). */
  onChunk?: (chunk: ModelChunk) => void;
}

/** An agent running the reference loop. */
export class LoopAgent implements Agent {
  // Fixed for the agent's life (getters over private fields, and no property can be added to shadow them): an
  // `agent/created` listener, or a tool handed the agent, cannot change the mode it asked for, the session the
  // gate folds, or the workspace paths are judged and confined in.
  readonly #id: string;
  readonly #session: Session;
  readonly #options: AgentOptions;
  readonly #workspace: string | undefined;
  readonly #model: Model;
  readonly #ctx: Context;
  onChunk?: (chunk: ModelChunk) => void;
  /** Whether this agent has logged a header yet (its first one is always full). */
  #headerLogged = false;
  // The header in effect, the turn count and the transcript are folded from the log with cursors, like the mode
  // fold: a resumed session may hold a million events, and rescanning them at every step would be felt.
  /** The header in effect in the log: deltas are computed against it, as replay does. */
  #logged: RequestHeader | null = null;
  #headerCursor = 0;
  #running = false;
  #turns = 0;
  #turnCursor = 0;
  #transcript = new TranscriptBuilder();
  #cursor = 0;
  /** How many messages the transcript held when last handed out. */
  #built = 0;

  /** @param ctx the context whose `systemPrompt` and `tools` services the agent's steps use */
  constructor(ctx: Context, init: LoopAgentInit) {
    this.#ctx = ctx;
    this.#id = init.id;
    this.#session = init.session;
    this.#options = Object.freeze({ ...init.options });
    this.#model = init.model;
    this.#workspace = init.workspace;
    if (init.onChunk) this.onChunk = init.onChunk;
    Object.preventExtensions(this);
  }

  get id(): string {
    return this.#id;
  }

  get session(): Session {
    return this.#session;
  }

  /** The options it was created with (a frozen copy). */
  get options(): AgentOptions {
    return this.#options;
  }

  get workspace(): string | undefined {
    return this.#workspace;
  }

  get model(): Model {
    return this.#model;
  }

  /** True while a turn runs. */
  get running(): boolean {
    return this.#running;
  }

  async prompt(text: string, options: { signal?: AbortSignal } = {}): Promise<TurnOutcome> {
    if (this.#running) throw new Error(`agent ${this.id} is already running a turn`);
    this.#running = true;
    try {
      return await this.turn(text, options.signal);
    } finally {
      this.#running = false;
    }
  }

  private async turn(text: string, signal: AbortSignal | undefined): Promise<TurnOutcome> {
    const { session } = this;
    const turn = this.countTurns() + 1;
    await session.append('turn/start', { turn });
    let last = '';
    let reason: EndReason = 'max-steps';
    let error: string | undefined;
    try {
      await session.append('user/message', { text });
      const maxSteps = this.options.maxSteps ?? DEFAULT_MAX_STEPS;
      for (let step = 1; step <= maxSteps; step++) {
        if (signal?.aborted) {
          reason = 'cancelled';
          break;
        }
        const outcome = await this.step(turn, step, signal);
        if (outcome.text !== undefined) last = outcome.text;
        if (outcome.end) {
          reason = outcome.end;
          error = outcome.error;
          break;
        }
      }
    } catch (failure) {
      reason = 'error';
      error = describeError(failure);
    }
    await session.append('turn/end', { turn, reason, ...(error !== undefined ? { error } : {}) });
    return { reason, text: last };
  }

  /** One step; returns how the turn ends after it, if it does. */
  private async step(
    turn: number,
    step: number,
    signal: AbortSignal | undefined,
  ): Promise<{ end?: EndReason; error?: string; text?: string }> {
    const { session } = this;
    await session.append('step/start', { step });
    try {
      const { header } = await this.#ctx.systemPrompt.assemble({ agent: this });
      await this.logHeader(header);
      let response: ModelResponse;
      try {
        response = await this.model.complete({ header, messages: this.messages(), signal }, this.onChunk);
      } catch (failure) {
        if (signal?.aborted) return { end: 'cancelled' };
        return { end: 'error', error: `model ${this.model.name}: ${describeError(failure)}` };
      }
      // Frozen, arguments as sealed JSON: each is logged (and handed to every session/event listener) and then
      // run, so no listener can make what runs differ from what the log says the model asked for.
      // The list too: it is the logged message's `toolCalls`, and the calls run are the ones in it.
      const calls: ToolCallRequest[] = Object.freeze(
        response.toolCalls.map((call, index) =>
          Object.freeze({
            callId: `call_${turn}_${step}_${index + 1}`,
            name: call.name,
            arguments: sealedArguments(call.arguments),
          }),
        ),
      ) as ToolCallRequest[];
      await session.append('assistant/message', {
        text: response.text,
        toolCalls: calls,
        ...(typeof response.reasoning === 'string' && response.reasoning !== ''
          ? { reasoning: response.reasoning }
          : {}),
      });
      for (const call of calls) {
        await session.append('tool/call', call);
        const result = signal?.aborted
          ? { content: `Error: \`${call.name}\` was cancelled before it ran`, isError: true }
          : await this.#ctx.tools.execute({ ...call, agent: this, signal });
        await session.append('tool/result', {
          callId: call.callId,
          name: call.name,
          content: result.content,
          isError: result.isError === true,
          ...(result.data ? { data: result.data } : {}),
        });
      }
      if (signal?.aborted) return { end: 'cancelled', text: response.text };
      return calls.length === 0 ? { end: 'done', text: response.text } : { text: response.text };
    } catch (failure) {
      if (signal?.aborted) return { end: 'cancelled' };
      return { end: 'error', error: describeError(failure) };
    } finally {
      await session.append('step/end', { step });
    }
  }

  private async logHeader(header: RequestHeader): Promise<void> {
    const { session } = this;
    const previous = this.#headerLogged ? this.foldLogged() : null;
    const resumed = !this.#headerLogged && (session.resumed === true || this.foldLogged() !== null);
    const plan = planHeaderLog(previous, header, resumed);
    if (plan.kind === 'delta') await session.append('request/header-delta', plan.delta);
    if (plan.kind === 'full') await session.append('request/header', { header, reason: plan.reason });
    this.#headerLogged = true;
  }

  /** The `turn/start` events in the log so far. */
  private countTurns(): number {
    const events = this.session.events;
    for (; this.#turnCursor < events.length; this.#turnCursor++) {
      if (events[this.#turnCursor]!.type === 'turn/start') this.#turns++;
    }
    return this.#turns;
  }

  /** The last header the log states (what replay yields at this point). */
  private foldLogged(): RequestHeader | null {
    const events = this.session.events;
    for (; this.#headerCursor < events.length; this.#headerCursor++) {
      const event = events[this.#headerCursor]!;
      if (event.type === 'request/header') {
        this.#logged = event.data.header;
      } else if (event.type === 'request/header-delta' && this.#logged) {
        this.#logged = applyDelta(this.#logged, event.data);
      }
    }
    return this.#logged;
  }

  /**
   * The transcript so far, extended incrementally (surface events are append-only) and handed out without a copy
   * (a long session's transcript is large): its messages are frozen and the model must not change the array
   * (`ModelRequest`). One event at a time: a spread of 150,000 messages as call arguments overflows the stack.
   */
  private messages(): readonly ModelMessage[] {
    const events = this.session.events;
    const transcript = this.#transcript;
    // A model that broke the contract and resized the array gets a transcript rebuilt from the log.
    if (transcript.messages.length !== this.#built) {
      this.#transcript = new TranscriptBuilder();
      this.#cursor = 0;
      return this.messages();
    }
    for (; this.#cursor < events.length; this.#cursor++) transcript.add(events[this.#cursor]!);
    this.#built = transcript.messages.length;
    return transcript.messages;
  }
}

/** A model's call arguments as sealed JSON; as they are when they have no JSON form (the runtime refuses them). */
function sealedArguments(args: unknown): unknown {
  try {
    return sealedJson(args);
  } catch {
    return args;
  }
}
