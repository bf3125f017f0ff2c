/**
 * `ctx.tools`: the tool registry and runtime. `execute()` never throws; every failure is an error result the
 * model can read: unknown name (naming the tools of the agent's last request header, or every registered tool
 * for an agent-less call or before the first header), a `deny` verdict (`Error: <reason>`), arguments that fail
 * the tool's JSON Schema (ajv, with the formats of ajv-formats), an `ask` verdict not answered `allowed-once`, a throwing judge (fail closed), or
 * a throwing tool.
 *
 * Order: name, then verdict, then arguments, then the question, then the run. A call is judged before its
 * arguments are validated, so a denied call never shows the model the tool's schema errors (guards and
 * `tools/pre-execute` listeners therefore see unvalidated arguments; they, the approval request and the tool
 * all get one frozen snapshot of the call, its arguments deep-frozen JSON, so what was judged is what runs). An
 * allowed call is validated before it runs, and an `ask` before it is asked, so the user is never asked about a
 * call that could not run. An `ask` appends `approval/asked` before asking and `approval/decided` when answered,
 * when the call has an agent whose session has an open turn; for a tool that presents its call as markdown (a
 * plan) the decision records that markdown's SHA-256 and whether the approver revised the arguments (an approval
 * may carry a revision, checked against the tool's schema like the call and judged again; one that fails either
 * answers `unavailable` with a `reason` saying which, otherwise the tool then runs with it. A rejection may carry
 * one too: it is recorded and handed to the tool's `onDenied`, and nothing runs). The deciding rule of a `deny` or `ask` verdict (`rule`) goes into
 * `approval/asked`, the approval request, and the result's `data.rule`, with a deny's `userReason` as
 * `data.userReason` (the model sees only `content`).
 *
 * The verdict (`judge()`) combines two seams. The guards (`guard()`: synchronous authorisers, the mode engine's
 * gate) set a ceiling; the `tools/pre-execute` waterfall (cordis's own) can only narrow it: the most restrictive
 * of all wins (deny > ask > allow). A guard's deny skips the waterfall. Because the ceiling is not a listener, no
 * registration order (`prepend` or not, before or after the guard's plugin) lets a listener widen it
 * (invariant 4). A throwing guard or listener denies.
 *
 * A guard's allow or ask may carry the path resolutions it decided on (`paths`): the runtime keeps them apart
 * from the verdict that `tools/verdict` observers see, takes them from guards only (never from the waterfall),
 * and hands them to the tool as `ToolContext.paths` (those of the re-judged revision when an approver revised the
 * arguments), so a file tool opens exactly what was decided on.
 * @module
 */
import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Service, type Context } from 'cordis';
import { compareRestrictiveness } from '../compile/index.js';
import { describeError, emitContained, warn } from './contain.js';
import { sealedJson } from './frozen-json.js';
import { foldRequestHeader } from './headers.js';
import { hostSandboxSupport, sandboxDenyReason } from './sandbox-capability.js';
import type { SandboxSupport } from './sandbox/index.js';
import type { ResolvedWorkspacePath } from '../files/resolve-path.js';
import type {
  ApprovalOutcome,
  Authorizer,
  CheckedPaths,
  PreExecuteResult,
  SandboxRequirement,
  Tool,
  ToolExec,
  ToolRegistry,
  ToolResult,
  ToolResultData,
  ToolSchema,
  VerdictRule,
} from './types.js';

declare module 'cordis' {
  interface Context {
    tools: ToolsService;
  }
  interface Events {
    /** Judges a call before it runs, under the guards' ceiling (it can only narrow it); innermost: allow. */
    'tools/pre-execute'(exec: ToolExec, next: () => Promise<PreExecuteResult>): Promise<PreExecuteResult>;
    /** The final verdict of a call (guards and waterfall combined), before it is asked or run. Contained. */
    'tools/verdict'(exec: ToolExec, verdict: PreExecuteResult): void;
  }
}

/** Config of `ctx.tools`. */
export interface ToolsConfig {
  /** The workspace root handed to tools when the call's agent names none. */
  workspace: string;
  /**
   * Whether this machine can start the OS sandbox, asked when a verdict first requires one. Default: one probe
   * per process (`sandboxSupport()`), since what the machine can do does not change while it runs.
   */
  sandboxSupport?: () => Promise<SandboxSupport>;
}

const never = new AbortController().signal;

/** The `ctx.tools` service. */
export class ToolsService extends Service implements ToolRegistry {
  private readonly registry = new Map<
    string,
    { tool: Tool<never>; validate: ValidateFunction; schema: ToolSchema }
  >();
  // The formats tool schemas use (MCP servers write `uri`, `date-time`, `email`…) are checked, not ignored with a
  // warning at every registration; a format ajv-formats does not know is still only an annotation.
  private readonly ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  /**
   * The registered guards, one entry per registration (a function registered twice is asked twice, and each
   * disposer removes its own). Replaced, never changed in place, so a judge that is running keeps its list.
   */
  private guards: readonly { authorizer: Authorizer }[] = [];
  readonly workspace: string;
  private readonly sandboxSupport: () => Promise<SandboxSupport>;

  constructor(ctx: Context, config: ToolsConfig) {
    super(ctx, 'tools');
    if (!config || typeof config.workspace !== 'string')
      throw new Error('ctx.tools needs a `workspace` path');
    this.workspace = config.workspace;
    this.sandboxSupport = config.sandboxSupport ?? hostSandboxSupport;
  }

  /**
   * Registers a tool for as long as the calling plugin lives. Its `annotations` are fixed from then on (frozen, the
   * property read-only): register it again to change them.
   * @returns a disposer that unregisters it
   * @throws on a duplicate name or a parameters schema ajv cannot compile
   */
  register<A>(tool: Tool<A>): () => void {
    if (typeof tool.name !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(tool.name)) {
      throw new Error(`invalid tool name ${JSON.stringify(tool.name)}`);
    }
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(tool.parameters);
    } catch (failure) {
      throw new Error(
        `the parameters schema of tool \`${tool.name}\` does not compile: ${describeError(failure)}`,
      );
    }
    return this.ctx.effect(
      () => {
        if (this.registry.has(tool.name)) throw new Error(`tool \`${tool.name}\` is already registered`);
        fixAnnotations(tool);
        // The schema as sent, normalised and deep-frozen: no listener can change the registry through it.
        const schema = sealedJson({
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
        });
        const entry = { tool: tool as Tool<never>, validate, schema };
        this.registry.set(tool.name, entry);
        return () => {
          if (this.registry.get(tool.name) === entry) this.registry.delete(tool.name);
          // A schema with an $id stays in ajv's cache otherwise, and registering the tool again would collide.
          this.ajv.removeSchema(tool.parameters);
        };
      },
      `tools.register(${JSON.stringify(tool.name)})`,
    );
  }

  /**
   * Registers a guard for as long as the calling plugin lives: a synchronous authoriser whose verdict is a ceiling
   * over the `tools/pre-execute` waterfall (see the module header).
   * @param authorizer the guard; a throw, a promise or a malformed verdict denies the call
   * @returns a disposer that removes it
   */
  guard(authorizer: Authorizer): () => void {
    if (typeof authorizer !== 'function') throw new Error('ctx.tools.guard() needs a function');
    return this.ctx.effect(() => {
      const entry = { authorizer };
      this.guards = [...this.guards, entry];
      return () => {
        this.guards = this.guards.filter((other) => other !== entry);
      };
    }, 'tools.guard()');
  }

  /**
   * The verdict for a call, without running it: the most restrictive of every guard's verdict and the
   * `tools/pre-execute` waterfall's. A guard that denies skips the waterfall. Never rejects: a throwing guard or
   * listener, or a verdict that is not one, denies. An allow or ask that requires an OS sandbox where this machine
   * cannot start one is denied, with a reason that says how to install one: such a call never runs bare.
   * @param exec the call
   * @returns allow, ask (with the reason of the first judge that asks) or deny (with the first deny's reason)
   */
  async judge(exec: ToolExec): Promise<PreExecuteResult> {
    return (await this.decide(exec)).verdict;
  }

  /**
   * {@link judge}, with the paths the guards decided on. They stay here, out of the verdict the `tools/verdict`
   * observers are handed, so only a guard's own resolution reaches the tool.
   */
  private async decide(exec: ToolExec): Promise<{ verdict: PreExecuteResult; paths?: CheckedPaths }> {
    const { verdict: ceiling, paths } = this.ceiling(exec);
    if (ceiling.kind === 'deny') return { verdict: ceiling };
    const narrowed = narrowest(ceiling, await this.preExecute(exec));
    const verdict =
      narrowed.kind === 'deny' || narrowed.sandbox === undefined
        ? narrowed
        : await this.sandboxed(exec, narrowed.sandbox, narrowed);
    return verdict.kind === 'deny' || paths === undefined ? { verdict } : { verdict, paths };
  }

  /** The verdict as it stands when the sandbox it requires can start here, else a deny that says why. */
  private async sandboxed(
    exec: ToolExec,
    required: SandboxRequirement,
    verdict: PreExecuteResult,
  ): Promise<PreExecuteResult> {
    let support: SandboxSupport;
    try {
      support = await this.sandboxSupport();
    } catch (failure) {
      support = { available: false, kind: 'none', reason: describeError(failure), howToInstall: '' };
    }
    if (support.available) return verdict;
    return Object.freeze({
      kind: 'deny',
      reason: sandboxDenyReason(exec.name, required, support),
      ...(required.rule ? { rule: required.rule } : {}),
    });
  }

  /**
   * The most restrictive of the guards' verdicts, and the paths they decided on (a copy; the first guard's
   * resolution of a path is kept); a throwing guard or a malformed verdict denies.
   */
  private ceiling(exec: ToolExec): { verdict: PreExecuteResult; paths?: CheckedPaths } {
    let ceiling: PreExecuteResult = ALLOW;
    let paths: Map<string, ResolvedWorkspacePath> | undefined;
    for (const { authorizer } of this.guards) {
      let verdict: PreExecuteResult | null;
      try {
        const raw = authorizer(exec);
        verdict = checked(raw);
        for (const [path, resolution] of pathsOf(raw)) {
          paths ??= new Map();
          if (!paths.has(path)) paths.set(path, resolution);
        }
      } catch (failure) {
        warn(this.ctx, `a tools guard failed; denying \`${exec.name}\``, failure);
        return {
          verdict: Object.freeze({
            kind: 'deny',
            reason: `the check of \`${exec.name}\` failed, so the call is denied: ${describeError(failure)}`,
          }),
        };
      }
      if (!verdict)
        return {
          verdict: Object.freeze({
            kind: 'deny',
            reason: `the check of \`${exec.name}\` gave no verdict, so the call is denied`,
          }),
        };
      ceiling = narrowest(ceiling, verdict);
      if (ceiling.kind === 'deny') return { verdict: ceiling };
    }
    return paths === undefined ? { verdict: ceiling } : { verdict: ceiling, paths };
  }

  /** The `tools/pre-execute` waterfall's verdict; a throwing listener or a malformed verdict denies. */
  private async preExecute(exec: ToolExec): Promise<PreExecuteResult> {
    let inner: PreExecuteResult | null;
    try {
      inner = checked(await this.ctx.waterfall('tools/pre-execute', exec, async () => ALLOW));
    } catch (failure) {
      warn(this.ctx, `a tools/pre-execute listener failed; denying \`${exec.name}\``, failure);
      return Object.freeze({
        kind: 'deny',
        reason: `the pre-execute check of \`${exec.name}\` failed, so the call is denied: ${describeError(failure)}`,
      });
    }
    if (!inner)
      return Object.freeze({
        kind: 'deny',
        reason: `the pre-execute check of \`${exec.name}\` gave no verdict, so the call is denied`,
      });
    return inner;
  }

  /** The registered tool of that name. */
  get(name: string): Tool | undefined {
    return this.registry.get(name)?.tool as Tool | undefined;
  }

  /** Registered names in registration order. */
  names(): string[] {
    return [...this.registry.keys()];
  }

  /** The schemas as sent to the model (deep-frozen, JSON-normal), in registration order, as a frozen list. */
  schemas(): readonly ToolSchema[] {
    return Object.freeze([...this.registry.values()].map((entry) => entry.schema));
  }

  /**
   * Validates, judges and runs one call. Never rejects. The call is taken as a frozen snapshot with its arguments
   * as sealed JSON (deep-frozen), and only the snapshot is judged, shown, asked about and run: a listener or
   * observer handed the call cannot change, after the guards judged it, what runs or the workspace it runs in.
   */
  async execute(exec: ToolExec): Promise<ToolResult> {
    const entry = this.registry.get(exec.name);
    if (!entry) {
      const names = this.visibleNames(exec);
      // A hallucinated name is quoted at most 200 characters long: the model may send megabytes.
      const name = String(exec.name);
      const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
      return error(
        `unknown tool \`${shown}\`; available tools: ${names.length ? names.join(', ') : '(none)'}`,
      );
    }
    const frozen = snapshot(exec);
    if (frozen === null) return error(`the arguments of \`${exec.name}\` are not JSON`);
    exec = frozen;
    const workspace = exec.agent?.workspace ?? this.workspace;
    // Judged before validation: a call the verdict denies never shows the model the tool's schema errors.
    const { verdict, paths: decidedPaths } = await this.decide(exec);
    let paths = decidedPaths;
    emitContained(this.ctx, 'tools/verdict', exec, verdict);
    const data = verdict.kind !== 'allow' && verdict.rule ? { rule: verdict.rule } : undefined;
    if (verdict.kind === 'deny') {
      const forUser = verdict.userReason !== undefined ? { userReason: verdict.userReason } : undefined;
      const denied = forUser && data ? { ...data, ...forUser } : (forUser ?? data);
      return error(verdict.reason || `\`${exec.name}\` is denied`, denied);
    }
    // Validated before asking: the user is never asked about a call that could not run.
    if (!entry.validate(exec.arguments)) {
      return error(`invalid arguments for \`${exec.name}\`: ${schemaProblems(entry.validate)}`);
    }
    // A tool that cannot run in the sandbox a verdict requires could only run bare: refused before any question.
    if (verdict.sandbox && entry.tool.sandboxes !== true) {
      return error(
        `\`${exec.name}\` must run in a ${verdict.sandbox.kind} OS sandbox here, and this tool cannot, so it was denied and nothing ran`,
        verdict.sandbox.rule ? { rule: verdict.sandbox.rule } : undefined,
      );
    }
    let args = exec.arguments;
    let edited = false;
    let sandbox = verdict.sandbox;
    if (verdict.kind === 'ask') {
      const asked = await this.ask(exec, verdict, entry);
      const { outcome } = asked;
      // A revised call was judged again: its own requirement holds as well.
      sandbox ??= asked.sandbox;
      if (sandbox && entry.tool.sandboxes !== true)
        return error(`\`${exec.name}\` must run in a ${sandbox.kind} OS sandbox here, and this tool cannot`);
      if (outcome.outcome !== 'allowed-once') {
        // The arguments the call stands with: the model's, or the user's revision of a rejected one.
        const denied =
          entry.tool.onDenied?.(outcome, asked.args as never) ?? error(denialText(exec.name, outcome));
        return withData(denied, data);
      }
      args = asked.args;
      edited = asked.edited;
      // A revision was judged again: its tool opens what that judgement decided on.
      if (asked.edited) paths = asked.paths;
    }
    if (exec.signal?.aborted) return error(`\`${exec.name}\` was cancelled before it ran`);
    try {
      const result = await entry.tool.execute(args as never, {
        callId: exec.callId,
        agent: exec.agent,
        signal: exec.signal ?? never,
        workspace,
        ...(edited ? { edited } : {}),
        ...(sandbox ? { sandbox: sandbox.kind } : {}),
        ...(paths ? { paths } : {}),
      });
      if (typeof result?.content !== 'string') return error(`\`${exec.name}\` returned no content`, data);
      return withData(
        result.isError ? { content: result.content, isError: true } : { content: result.content },
        data,
      );
    } catch (failure) {
      return error(describeError(failure), data);
    }
  }

  /**
   * The tool names an unknown-tool error may list: those of the request header the call's agent was last shown
   * (so it never names a tool a mode filtered out, nor `exit_plan_mode` in default mode); every registered name
   * only for an agent-less call or a log with no header yet.
   */
  private visibleNames(exec: ToolExec): string[] {
    const events = exec.agent?.session?.events;
    if (!events) return this.names();
    let header: ReturnType<typeof foldRequestHeader> = null;
    try {
      header = foldRequestHeader(events);
    } catch {
      // A delta before any header: the log shows no header the model can be said to have seen.
    }
    return header ? header.tools.map((tool) => tool.name) : this.names();
  }

  /** The verdict for `exec` with the approver's revised arguments (sealed JSON), as for any call. */
  private async judgeRevision(
    exec: ToolExec,
    revised: unknown,
  ): Promise<{ verdict: PreExecuteResult; paths?: CheckedPaths }> {
    return this.decide(Object.freeze({ ...exec, arguments: revised }));
  }

  /**
   * Asks about a call and records the question and the answer. An approval that revises the arguments is
   * checked against the tool's schema, then judged again as a call: a revision that fails the schema, or that the
   * guards or listeners deny, is answered `unavailable`, recorded so (the tool does not run). A rejection's
   * revision that passes the schema is kept in the outcome; one that fails it is dropped.
   * @returns the outcome, the arguments the tool runs (or is denied) with, and whether they are the approver's
   *   revision
   */
  private async ask(
    exec: ToolExec,
    verdict: { reason?: string; rule?: VerdictRule },
    entry: { tool: Tool<never>; validate: ValidateFunction },
  ): Promise<{
    outcome: ApprovalOutcome;
    args: unknown;
    edited: boolean;
    sandbox?: SandboxRequirement;
    paths?: CheckedPaths;
  }> {
    const { reason, rule } = verdict;
    const session = exec.agent?.session;
    const audit = session?.turnOpen ? session : undefined;
    await audit?.append('approval/asked', {
      callId: exec.callId,
      toolName: exec.name,
      ...(reason ? { reason } : {}),
      ...(rule ? { rule } : {}),
    });
    const approval = this.ctx.get('approval');
    let outcome: ApprovalOutcome = approval
      ? // Frozen: an outer approval/request listener cannot rewrite what an inner answerer shows the user.
        await approval.request(
          Object.freeze({
            agent: exec.agent,
            toolName: exec.name,
            callId: exec.callId,
            reason,
            ...(rule ? { rule } : {}),
            arguments: exec.arguments,
            signal: exec.signal,
          }),
        )
      : { outcome: 'unavailable' };
    let args = exec.arguments;
    let edited = false;
    let sandbox: SandboxRequirement | undefined;
    let revisedPaths: CheckedPaths | undefined;
    if (outcome.outcome === 'allowed-once' && outcome.arguments !== undefined) {
      const valid = entry.validate(outcome.arguments);
      const revised = valid ? sealedJson(outcome.arguments) : undefined;
      const changed = revised !== undefined && JSON.stringify(revised) !== JSON.stringify(exec.arguments);
      // A revision is another call: judged again, so an approval of one call cannot run one the guards or
      // listeners deny (the approver was asked about the call as judged; only `ask` is answered by approving).
      const judged = changed ? await this.judgeRevision(exec, revised) : undefined;
      const again = judged?.verdict;
      if (again?.kind === 'deny') {
        warn(
          this.ctx,
          `the approval of \`${exec.name}\` revised its arguments to a call that is denied ` +
            `(${again.reason}); answering unavailable`,
        );
        outcome = {
          outcome: 'unavailable',
          reason: `the approval of \`${exec.name}\` edited its arguments into a call that is denied: ${again.reason}`,
        };
      } else if (revised !== undefined) {
        args = revised;
        edited = changed;
        if (again?.sandbox) sandbox = again.sandbox;
        revisedPaths = judged?.paths;
      } else {
        warn(
          this.ctx,
          `the approval of \`${exec.name}\` revised its arguments to invalid ones; answering unavailable`,
        );
        const problems = valid ? 'they have no JSON form' : schemaProblems(entry.validate);
        outcome = {
          outcome: 'unavailable',
          reason: `the approval of \`${exec.name}\` edited its arguments into ones that do not fit its parameters: ${problems}`,
        };
      }
    } else if (outcome.outcome === 'rejected' && outcome.arguments !== undefined) {
      // A rejection after an edit keeps the edit (recorded, and handed to `onDenied`); nothing runs, so a
      // revision that fails the schema is only dropped: the rejection stands either way.
      const { arguments: revised, ...rest } = outcome;
      const valid = entry.validate(revised);
      if (!valid) {
        warn(this.ctx, `the rejection of \`${exec.name}\` revised its arguments to invalid ones; dropped`);
      }
      edited = valid && JSON.stringify(revised) !== JSON.stringify(exec.arguments);
      if (edited) args = revised;
      outcome = edited ? { ...rest, arguments: revised } : rest;
    }
    const feedback = outcome.outcome === 'rejected' && outcome.feedback ? { feedback: outcome.feedback } : {};
    const markdown = presentedMarkdown(entry.tool, args);
    await audit?.append('approval/decided', {
      callId: exec.callId,
      outcome: outcome.outcome,
      ...feedback,
      ...(markdown !== undefined ? { sha256: sha256(markdown) } : {}),
      ...(markdown !== undefined || edited ? { edited } : {}),
      ...(edited ? { arguments: args } : {}),
    });
    return {
      outcome,
      args,
      edited,
      ...(sandbox ? { sandbox } : {}),
      ...(revisedPaths ? { paths: revisedPaths } : {}),
    };
  }
}

/**
 * A frozen copy of a call, its arguments sealed JSON (the model's are JSON already); null when they have no JSON
 * form (a BigInt, a cycle), which no model sends.
 */
function snapshot(exec: ToolExec): ToolExec | null {
  let args: unknown;
  try {
    args = sealedJson(exec.arguments);
  } catch {
    return null;
  }
  const { callId, name, agent, signal } = exec;
  return Object.freeze({
    callId,
    name,
    arguments: args,
    ...(agent !== undefined ? { agent } : {}),
    ...(signal !== undefined ? { signal } : {}),
  });
}

/**
 * Fixes a registered tool's annotations: frozen, and the property made read-only (when it is the tool's own data
 * property). They are the mode engine's hints: anyone can `get()` a tool, and an edit in place would let a tool
 * change how it is judged after it was registered. Register the tool again to change them.
 */
function fixAnnotations(tool: Tool<never>): void {
  const own = Object.getOwnPropertyDescriptor(tool, 'annotations');
  if (own === undefined || !('value' in own)) return;
  if (typeof own.value === 'object' && own.value !== null) Object.freeze(own.value);
  if (own.writable === true || own.configurable === true)
    Object.defineProperty(tool, 'annotations', { writable: false, configurable: false });
}

/** The markdown a tool presents its call as (the plan of `exit_plan_mode`), or undefined (none, or it throws). */
function presentedMarkdown(tool: Tool<never>, args: unknown): string | undefined {
  try {
    const markdown = tool.present?.(args as never)?.markdown;
    return typeof markdown === 'string' ? markdown : undefined;
  } catch {
    return undefined;
  }
}

/** What a failed schema check found, for the model: `path message` per error, joined. */
function schemaProblems(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message}`).join('; ');
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The error result text for a call the approval did not allow. */
export function denialText(
  name: string,
  outcome: Exclude<ApprovalOutcome, { outcome: 'allowed-once' }>,
): string {
  switch (outcome.outcome) {
    case 'rejected':
      return `the user rejected \`${name}\`${outcome.feedback ? `: ${outcome.feedback}` : ''}`;
    case 'cancelled':
      return `the approval of \`${name}\` was cancelled, so it did not run`;
    case 'unavailable':
      return outcome.reason !== undefined
        ? `${outcome.reason}, so it did not run`
        : `\`${name}\` needs approval and no one can answer here, so it did not run`;
  }
}

const ALLOW: PreExecuteResult = Object.freeze({ kind: 'allow' });

/**
 * The more restrictive of two verdicts (deny > ask > allow); on a tie the first, so the ceiling's reason is kept.
 * A sandbox either requires stays required: a judge can add one, never lift one.
 * @param a the verdict so far
 * @param b the next one
 */
export function narrowest(a: PreExecuteResult, b: PreExecuteResult): PreExecuteResult {
  const [pick, other] = compareRestrictiveness(b.kind, a.kind) > 0 ? [b, a] : [a, b];
  // Neither is a deny past this point: deny is the most restrictive, so it would have been picked.
  if (pick.kind === 'deny' || other.kind === 'deny' || pick.sandbox !== undefined) return pick;
  return other.sandbox === undefined ? pick : Object.freeze({ ...pick, sandbox: other.sandbox });
}

/**
 * A well-formed verdict (a copy holding only its own fields), or null for anything else (a promise, junk). A
 * malformed `rule` is dropped, not trusted: it is only a label, and the verdict still stands.
 */
function checked(value: unknown): PreExecuteResult | null {
  const verdict = value as {
    kind?: unknown;
    reason?: unknown;
    userReason?: unknown;
    rule?: unknown;
    sandbox?: unknown;
  } | null;
  const reason = typeof verdict?.reason === 'string' ? verdict.reason : undefined;
  const userReason = typeof verdict?.userReason === 'string' ? { userReason: verdict.userReason } : {};
  const rule = ruleOf(verdict?.rule);
  const labelled = rule ? { rule } : {};
  // A sandbox requirement is not a label: one the runtime cannot read makes the verdict malformed (it denies).
  const required = verdict?.sandbox === undefined ? undefined : sandboxOf(verdict.sandbox);
  if (required === null) return null;
  const sandbox = required ? { sandbox: required } : {};
  // Frozen: every `tools/verdict` observer is handed the same object, and none may change what the others see.
  switch (verdict?.kind) {
    case 'allow':
      return required ? Object.freeze({ kind: 'allow', ...sandbox }) : ALLOW;
    case 'ask':
      return Object.freeze(
        reason !== undefined
          ? { kind: 'ask', reason, ...labelled, ...sandbox }
          : { kind: 'ask', ...labelled, ...sandbox },
      );
    case 'deny':
      return Object.freeze({ kind: 'deny', reason: reason ?? '', ...userReason, ...labelled });
    default:
      return null;
  }
}

/** A frozen copy of a well-formed sandbox requirement, or null for anything else. */
function sandboxOf(value: unknown): SandboxRequirement | null {
  const required = value as { kind?: unknown; rule?: unknown } | null;
  if (typeof required !== 'object' || required === null || required.kind !== 'read-only') return null;
  const rule = ruleOf(required.rule);
  return Object.freeze(rule ? { kind: 'read-only', rule } : { kind: 'read-only' });
}

/** A frozen copy of a well-formed rule, or undefined. */
function ruleOf(value: unknown): VerdictRule | undefined {
  const rule = value as Partial<Record<keyof VerdictRule, unknown>> | null | undefined;
  if (typeof rule !== 'object' || rule === null || typeof rule.selector !== 'string') return undefined;
  const file = rule.file ?? null;
  const line = rule.line ?? null;
  const column = rule.column ?? null;
  if (file !== null && typeof file !== 'string') return undefined;
  if (!positionOrNull(line) || !positionOrNull(column)) return undefined;
  return Object.freeze({ selector: rule.selector, file, line, column } as VerdictRule);
}

function positionOrNull(value: unknown): boolean {
  return value === null || (Number.isSafeInteger(value) && (value as number) >= 0);
}

/**
 * The path resolutions a guard's verdict carries, copied and frozen: only well-formed, resolved entries (a guard
 * is trusted code, but a later change to its map must not change what the tool opens).
 */
function pathsOf(value: unknown): [string, ResolvedWorkspacePath][] {
  const paths = (value as { kind?: unknown; paths?: unknown } | null)?.paths;
  if (!(paths instanceof Map) || (value as { kind: unknown }).kind === 'deny') return [];
  const out: [string, ResolvedWorkspacePath][] = [];
  for (const [path, resolution] of paths as Map<unknown, unknown>) {
    const r = resolution as Partial<ResolvedWorkspacePath> | null;
    if (
      typeof path === 'string' &&
      r?.ok === true &&
      typeof r.target === 'string' &&
      typeof r.anchor === 'string'
    )
      out.push([path, Object.freeze({ ...(r as ResolvedWorkspacePath) })]);
  }
  return out;
}

function error(message: string, data?: ToolResultData): ToolResult {
  return withData({ content: `Error: ${message}`, isError: true }, data);
}

function withData(result: ToolResult, data: ToolResultData | undefined): ToolResult {
  return data ? { ...result, data } : result;
}
