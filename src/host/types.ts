/**
 * The host's seams, as types: the contract between the reference host (`src/host/`) and the plugins that
 * live in it (the mode engine in `src/engine/`). Names follow the upstream harness at the time of the RFC
 * (src/host/README.md), so the engine reads like the RFC. This file has no runtime imports (types only).
 *
 * Every interface meant for plugins to extend (`SessionEventMap`, `AgentOptions`) is open to declaration
 * merging: `declare module '../host/types.js' { interface SessionEventMap { 'mode/set': { mode: string } } }`.
 * @module
 */
import type { ResolvedWorkspacePath } from '../files/resolve-path.js';

/** A JSON Schema object, as sent to the model for a tool's parameters. */
export type JsonSchema = { [key: string]: unknown };

// ---------------------------------------------------------------------------------------------- sessions

/** A todo item, as `todo_write` records it. */
export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** One tool schema exactly as sent to the model. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** What the model receives besides the transcript: the rendered system text and the tool schemas. */
export interface RequestHeader {
  system: string;
  tools: ToolSchema[];
}

/** The change between two consecutive request headers (see `request/header-delta`). */
export interface RequestHeaderDelta {
  /** The new system text, present only when it changed. */
  system?: string;
  /** Tools present now and absent before, in their position order of the new header. */
  added?: ToolSchema[];
  /** Names of tools present before and absent now. */
  removed?: string[];
  /** Tools present in both whose schema changed (the new schema). */
  changed?: ToolSchema[];
  /**
   * The full tool order of the new header, present only when it cannot be derived (replaying applies `removed`,
   * replaces `changed` in place and appends `added` at the end; `order` is present when that is not the new order).
   */
  order?: string[];
}

/** A tool call as the model asked for it. */
export interface ToolCallRequest {
  /** Unique within the session. */
  callId: string;
  name: string;
  arguments: unknown;
}

/**
 * Every event type and its payload. Surface events form the model transcript; the rest are log-only.
 * Open to declaration merging by plugins (the mode engine adds `mode/set`).
 */
export interface SessionEventMap {
  'turn/start': { turn: number };
  'turn/end': { turn: number; reason: 'done' | 'max-steps' | 'cancelled' | 'error'; error?: string };
  'step/start': { step: number };
  'step/end': { step: number };
  'user/message': { text: string };
  /** `reasoning`: a thinking model's reasoning for this answer, when it sent one. */
  'assistant/message': { text: string; toolCalls: ToolCallRequest[]; reasoning?: string };
  'tool/call': { callId: string; name: string; arguments: unknown };
  'tool/result': { callId: string; name: string; content: string; isError: boolean; data?: ToolResultData };
  'context/message': { text: string };
  'request/header': { header: RequestHeader; reason: 'initial' | 'resume' | 'fallback' };
  'request/header-delta': RequestHeaderDelta;
  'todo/write': { todos: TodoItem[] };
  'approval/asked': { callId: string; toolName: string; reason?: string; rule?: VerdictRule };
  /**
   * `sha256` and `edited` are recorded for a tool that presents its call as markdown (the plan of
   * `exit_plan_mode`): the SHA-256 (hex) of the markdown of the final arguments, and whether the approver revised
   * them (before approving or before rejecting); `arguments` holds the revised arguments, only when they were
   * revised, so the log keeps what was approved, or the user's version of what was rejected.
   */
  'approval/decided': {
    callId: string;
    outcome: ApprovalOutcome['outcome'];
    feedback?: string;
    sha256?: string;
    edited?: boolean;
    arguments?: unknown;
  };
}

export type SessionEventType = keyof SessionEventMap & string;

/**
 * One journal entry. `seq` starts at 1 and increases by one per append. `time` is an ISO 8601 string.
 * A union over {@link SessionEventMap}, discriminated by `type`: `switch (event.type)` narrows `event.data`.
 * `SessionEvent<'tool/call'>` is one member.
 */
export type SessionEvent<K extends SessionEventType = SessionEventType> = Extract<
  AnySessionEvent,
  { type: K }
>;

/** Every event type's entry, as one union (what {@link SessionEvent} picks from). */
type AnySessionEvent = {
  [T in SessionEventType]: { seq: number; type: T; data: SessionEventMap[T]; time: string };
}[SessionEventType];

/**
 * An event whose payload has not been checked: the shape of a line read back from a journal file (the reader
 * checks `seq`, `type`, `time` and that `data` is an object, nothing inside it). Code that must survive a
 * hand-edited or foreign log takes this type, so the compiler makes it check a field before using it.
 * Every {@link SessionEvent} is one.
 */
export interface UncheckedEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: unknown;
  readonly time: string;
}

/** The surface event types: the model transcript is built from these alone. */
export const SURFACE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'user/message',
  'assistant/message',
  'tool/result',
  'context/message',
]);

/**
 * An append-only session journal. Every hook (guards, views, sections, listeners) is called for every session;
 * plugins derive their state from `events` (the mode engine folds its mode from them).
 */
export interface Session {
  readonly id: string;
  /** Path of the JSONL file, or null for an in-memory session. */
  readonly file: string | null;
  /** Every event so far, in `seq` order. The array only grows; never mutate it. */
  readonly events: readonly SessionEvent[];
  /** True between a `turn/start` and its `turn/end`. */
  readonly turnOpen: boolean;
  /** True when the events came from an earlier run (resume, fork): the next agent logs its first header as `resume`. */
  readonly resumed?: boolean;
  /** Flushes and releases the session's file and lock (host sessions have it; further appends throw). */
  close?(): void;
  /**
   * Appends one event (inside an open turn, or the `turn/start` that opens one; anything else throws),
   * then runs the `session/event` waterfall and resolves after it. A throwing listener is contained
   * (logged) and never breaks the append.
   */
  append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): Promise<SessionEvent<K>>;
}

// ---------------------------------------------------------------------------------------------- prompt

/** What the assemble step knows about the request being built. */
export interface AssembleContext {
  /** The agent the request is for; absent for an agent-less assembly. */
  agent?: Agent;
}

export interface PromptSection {
  name: string;
  /** Sections render by order, then name. Persona 0, modes 50, tool guidance 100–199. */
  order: number;
  /** Empty text is dropped from the rendered system prompt. */
  text: string | ((context: AssembleContext) => string);
}

/** What the `system-prompt/assemble` waterfall passes along and may change. */
export interface Assembly {
  sections: { name: string; order: number; text: string }[];
  tools: ToolSchema[];
}

// ---------------------------------------------------------------------------------------------- tools

/** MCP `ToolAnnotations` hints. Absent hints take MCP's defaults. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * The paths a guard decided a call on, by path as written in the call: each where it resolved
 * (src/files/resolve-path.ts), with the identity of what it found there. A file tool opens its path's entry,
 * without following links, and refuses if it changed since; a path without an entry it resolves itself.
 */
export type CheckedPaths = ReadonlyMap<string, ResolvedWorkspacePath>;

/** What a tool's `execute` receives besides its validated arguments. */
export interface ToolContext {
  callId: string;
  agent?: Agent;
  signal: AbortSignal;
  /** The workspace root the file tools are confined to. */
  workspace: string;
  /** The paths the guards decided this call on (absent when none looked at a path). */
  paths?: CheckedPaths;
  /** True when the approver revised the call's arguments (an edited plan): `execute` got the revised ones. */
  edited?: boolean;
  /**
   * The OS sandbox the call must run in (`read-only`), when the verdict requires one: a tool that runs programs
   * runs them in it, or refuses the call; it never runs them bare. Absent: no sandbox is required.
   */
  sandbox?: 'read-only';
}

/** What a tool returns; `isError` results reach the model as errors. */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /** Structured facts about the result for the journal and UIs; the model sees only `content`. */
  data?: ToolResultData;
}

/** The structured part of a tool result (set by the tool runtime, not by tools). */
export interface ToolResultData {
  /** The rule of a `deny` verdict, or of an `ask` verdict once asked (whatever the answer). */
  rule?: VerdictRule;
  /**
   * A deny verdict's sentence for the user (`… until you approve a plan`), when it has one: `content` is written for
   * the model (what to do next), this for the person watching (an ACP client shows it on the failed call).
   */
  userReason?: string;
}

/**
 * The rule that decided a verdict: a policy selector as written with the file:line:column where it is written,
 * or an engine rule (a parenthesised name such as `(default mode)`) with no file.
 */
export interface VerdictRule {
  selector: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

export interface Tool<A = unknown> {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** MCP's hints (the mode engine's input); fixed when the tool is registered: frozen and read-only. */
  annotations?: ToolAnnotations;
  /**
   * True for a tool that honours `context.sandbox` (runs what it runs in the OS sandbox, or refuses). A call whose
   * verdict requires a sandbox is denied for any other tool: it could only run bare.
   */
  sandboxes?: boolean;
  execute(args: A, context: ToolContext): Promise<ToolResult> | ToolResult;
  /** How a UI presents a call of this tool (a card); absent means a generic card titled by the tool name. */
  present?(args: A): { title: string; markdown?: string };
  /**
   * The result when an `ask` verdict is not answered `allowed-once` (the tool does not run). Absent means the
   * runtime's generic error (`Error: the user rejected \`name\`: <feedback>`, …). Must return an error result.
   */
  onDenied?(outcome: Exclude<ApprovalOutcome, { outcome: 'allowed-once' }>, args: A): ToolResult;
}

/** One call on its way to a tool, as the `tools/pre-execute` waterfall sees it. */
export interface ToolExec {
  callId: string;
  name: string;
  arguments: unknown;
  agent?: Agent;
  signal?: AbortSignal;
}

/**
 * The OS sandbox a verdict requires for a call (`read-only`), and the rule that requires it (a policy's `sandbox`
 * key), named in the deny when this machine cannot start one.
 */
export interface SandboxRequirement {
  kind: 'read-only';
  rule?: VerdictRule;
}

/**
 * The verdict of a guard or the `tools/pre-execute` waterfall; `rule` names what decided a deny or an ask. An
 * allow or ask may require a `sandbox`: the runtime keeps the requirement of every judge (it can only add one),
 * denies the call where no sandbox can start, and otherwise hands it to the tool (`ToolContext.sandbox`).
 */
export type PreExecuteResult =
  /**
   * `paths`: what a guard decided on (the runtime takes it from guards only, never from the waterfall, and hands
   * it to the tool as `ToolContext.paths`).
   */
  | { kind: 'allow'; sandbox?: SandboxRequirement; paths?: CheckedPaths }
  | {
      kind: 'deny';
      /** What the model gets, as `Error: <reason>`. */
      reason: string;
      /**
       * The reason in words for the person watching (a chat's tool line), when `reason` is written for the model
       * (it tells the model what to do next); without it, `reason` serves both.
       */
      userReason?: string;
      rule?: VerdictRule;
    }
  | { kind: 'ask'; reason?: string; rule?: VerdictRule; sandbox?: SandboxRequirement; paths?: CheckedPaths };

/**
 * A synchronous judge registered with `ctx.tools.guard()`. Its verdict is a ceiling: the runtime combines it with
 * the `tools/pre-execute` waterfall's as the most restrictive of the two (deny > ask > allow), so no listener, in
 * any registration order, can widen it. It must not throw and must not be async; either denies the call.
 */
export type Authorizer = (exec: ToolExec) => PreExecuteResult;

// ---------------------------------------------------------------------------------------------- approval

export interface ApprovalRequest {
  agent?: Agent;
  toolName: string;
  callId: string;
  /** Why the question is asked (from the `ask` verdict). */
  reason?: string;
  /** The rule that asks (from the `ask` verdict), so an answerer can show where it is written. */
  rule?: VerdictRule;
  /** The call's arguments, so an answerer can show them (the plan of `exit_plan_mode`). */
  arguments?: unknown;
  signal?: AbortSignal;
}

export type ApprovalOutcome =
  /**
   * `arguments`: the approver's revision of the call's arguments (an edited plan). The tool runs with them; they
   * are checked against the tool's schema and judged again first, and a revision that fails either answers
   * `unavailable` with a `reason`.
   */
  | { outcome: 'allowed-once'; arguments?: unknown }
  /**
   * `arguments`: the approver's revision before rejecting (a plan the user edited, then sent back). Nothing runs;
   * a revision that passes the tool's schema is recorded and reaches the tool's `onDenied` in this outcome, so
   * the edit is not lost; one that fails it is dropped and the rejection stands.
   */
  | { outcome: 'rejected'; feedback?: string; arguments?: unknown }
  | { outcome: 'cancelled' }
  /**
   * `reason`: set by the host alone, when it answered so for an approval whose revision it refused (it failed the
   * tool's schema, or the revised call is denied); the model is told it (a tool's `onDenied` gets it too).
   */
  | { outcome: 'unavailable'; reason?: string };

// ---------------------------------------------------------------------------------------------- agents

/** Options of a new agent. Open to declaration merging (the mode engine adds `mode`). */
export interface AgentOptions {
  /** Upper bound on model requests in one turn. */
  maxSteps?: number;
}

export interface Agent {
  readonly id: string;
  readonly session: Session;
  readonly options: AgentOptions;
  /** The workspace root its tools work in (the host's when absent). */
  readonly workspace?: string;
  /** Runs one turn: user message, then steps until the model stops calling tools or a limit is reached. */
  prompt(text: string, options?: { signal?: AbortSignal }): Promise<TurnOutcome>;
}

export interface TurnOutcome {
  reason: SessionEventMap['turn/end']['reason'];
  /** The assistant's last text of the turn. */
  text: string;
}

// ---------------------------------------------------------------------------------------------- models

/** One message of the model transcript, rebuilt from surface events. */
export type ModelMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCallRequest[]; reasoning?: string }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

/**
 * One model request. Both fields are the host's own, shared with the log and with later requests: the header and
 * each message are frozen, and `messages` is the agent's transcript itself, which grows after the request ends.
 * A model reads them during `complete()`; one that keeps them copies them (the scripted model's recording does).
 */
export interface ModelRequest {
  header: RequestHeader;
  messages: readonly ModelMessage[];
  signal?: AbortSignal;
}

/**
 * A streamed piece of the answer: its text, or a thinking model's reasoning. The final answer is the resolved
 * `ModelResponse`.
 */
export type ModelChunk = { kind: 'text'; text: string } | { kind: 'reasoning'; text: string };

export interface ModelResponse {
  text: string;
  /** A thinking model's reasoning, kept with the answer (some APIs need it sent back within the turn). */
  reasoning?: string;
  toolCalls: { name: string; arguments: unknown }[];
}

export interface Model {
  readonly name: string;
  complete(request: ModelRequest, onChunk?: (chunk: ModelChunk) => void): Promise<ModelResponse>;
}

// ---------------------------------------------------------------------------------------------- services

/** Looks a registered tool up by name. */
export type ToolLookup = (name: string) => Tool | undefined;

/**
 * The tool seam as a plugin uses it (`ctx.tools`, implemented by the host's `ToolsService`). Registrations are
 * effects of the calling plugin, so they must go through `ctx.tools`.
 */
export interface ToolRegistry {
  /** The workspace root tools use when the call's agent names none (argument rules resolve paths against it). */
  readonly workspace: string;
  /** Registers a tool while the calling plugin lives; throws on a duplicate or invalid name or schema. */
  register<A>(tool: Tool<A>): () => void;
  /** Registers a guard: a ceiling over the `tools/pre-execute` waterfall, while the calling plugin lives. */
  guard(authorizer: Authorizer): () => void;
  /** The registered tool of that name. */
  get(name: string): Tool | undefined;
}

/**
 * A filter over the tools the model is shown, applied by the host after the whole `system-prompt/assemble`
 * waterfall (so no listener, inner or outer, can show a tool it hides). At each assembly `key` is asked once and
 * `keep` once per tool. A view that throws hides every tool of that assembly (logged).
 */
export interface ToolView {
  /** What this view's answer depends on for one assembly (a mode, a session…), handed to `keep`. */
  key(context: AssembleContext): unknown;
  /** Whether the model sees `tool` under `key`. `tool` is the schema as the header sends it (deep-frozen JSON). */
  keep(tool: ToolSchema, key: unknown): boolean;
}

/** The system prompt seam as a plugin uses it (`ctx.systemPrompt`). */
export interface PromptSections {
  /** Adds a section while the calling plugin lives; throws on a duplicate name. */
  section(section: PromptSection): () => void;
  /** Adds a {@link ToolView} while the calling plugin lives. */
  view(view: ToolView): () => void;
}

/** The approval seam (`ctx.approval`): asks whoever answers `approval/request`; never rejects. */
export interface ApprovalSeam {
  request(request: ApprovalRequest): Promise<ApprovalOutcome>;
}
