/**
 * The engine's state for one plugin instance: the resolved modes, the per-session fold and the pending intents.
 * Both layers decide through `authorize()` (`verdict`), with the registered tool's annotations as hints, so the
 * tool view and the gate always come from the same table (visibility = the decision is not deny). The host's
 * built-in tools are registered with the tool catalog's annotations (`BUILTIN_TOOL_ANNOTATIONS`), the table that
 * `check`, lint's inline tests, `matrix` and `diff` decide them with; a name no plugin registered is decided as
 * they decide it, with the compiled policy's catalog.
 *
 * Nothing here is module-global: disposing the plugin drops this object, and a reload starts clean.
 * @module
 */
import { fsPathResolver, fsProgramCheck, hintsOfAnnotations } from '../compile/index.js';
import type { Hints } from '../compile/types.js';
import type { WorkspacePathResolution } from '../files/resolve-path.js';
import type { Session, ToolAnnotations, ToolLookup } from '../host/types.js';
import type { ResolvedModes } from '../deploy/modes.js';
import { authorize, isVisible, type Verdict } from './authorize.js';
import { DEFAULT_MODE } from './vocabulary.js';
import { ModeFoldCache } from './fold.js';
import { removeIntent, writeIntent } from './intent-file.js';

/** A flip waiting for the next boundary. `narrate` is false for the tool-driven exit (its result narrates it). */
export interface Intent {
  readonly mode: string;
  readonly narrate: boolean;
}

/** A call's arguments and the workspace its paths resolve against, for the gate. */
export interface CallArguments {
  readonly arguments: unknown;
  readonly workspace: string;
  /**
   * Where the path resolutions the decision used are recorded, by path as written (a fresh map per call): the
   * gate hands them to the tool, which opens exactly what was decided on.
   */
  readonly record?: Map<string, WorkspacePathResolution>;
}

/** Finds a registered tool by name (`ctx.tools.get`), for its annotations. */
export type { ToolLookup };

/** The state of one engine instance. */
export class ModeCore {
  /** The landed mode per session. */
  readonly folds = new ModeFoldCache();
  readonly #intents = new WeakMap<Session, Intent>();
  #disposed = false;

  /**
   * @param modes the resolved configuration
   * @param lookup finds registered tools, for their hints
   * @param warn where a failed clean-up of a recorded intent is reported
   */
  constructor(
    readonly modes: ResolvedModes,
    private readonly lookup: ToolLookup,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  /** True once the plugin is being disposed: nothing may flip a mode any more. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Marks the instance disposed (the plugin's last effect). */
  dispose(): void {
    this.#disposed = true;
  }

  /**
   * @param session a session
   * @returns its landed mode (the fold; never a pending intent)
   */
  mode(session: Session): string {
    return this.folds.mode(session);
  }

  /**
   * @param mode a mode name
   * @returns whether the deployment can run it: `default`, or a configured mode
   */
  isDefined(mode: string): boolean {
    return mode === DEFAULT_MODE || this.modes.get(mode) !== undefined;
  }

  /** The pending intent of a session, if any. */
  pending(session: Session): Intent | undefined {
    return this.#intents.get(session);
  }

  /** Parks (or replaces) the session's pending intent. */
  park(session: Session, intent: Intent): void {
    this.#intents.set(session, intent);
  }

  /**
   * Whether an `exit_plan_mode` call was approved in the running step: its intent (the only one that is not
   * narrated) waits for the step's end.
   */
  exitApproved(session: Session): boolean {
    return this.#intents.get(session)?.narrate === false;
  }

  /** Clears the session's pending intent if it is still `intent` (a newer one set meanwhile stays). */
  settle(session: Session, intent: Intent): void {
    if (this.#intents.get(session) === intent) this.#intents.delete(session);
  }

  /**
   * Makes the session's recorded intent (the file beside its journal; none for an in-memory session) say
   * `intent`: written for a user flip, removed for none. Call it before changing the pending intent in memory.
   * @throws when the file cannot be written or removed
   */
  record(session: Session, intent: Intent | undefined): void {
    if (!session.file) return;
    if (intent) writeIntent(session.file, { mode: intent.mode, seq: session.events.length });
    else removeIntent(session.file);
  }

  /** Removes the session's recorded intent, reporting (not throwing) a failure: a leftover is stale anyway. */
  forget(session: Session): void {
    try {
      this.record(session, undefined);
    } catch (error) {
      this.warn(`could not remove the recorded mode switch of session ${session.id}: ${describe(error)}`);
    }
  }

  /**
   * The verdict for a tool in a mode (`authorize()`), with the registered tool's annotations as hints (a tool no
   * one registered, such as a hallucinated name, gets its catalogued hints: MCP's defaults unless it is a
   * built-in tool's name). Decided afresh each
   * time: the compiled policy memoises its decision by name and hints, and argument rules must see each call.
   * @param mode the mode to judge in (the landed one, for the gate and the filter)
   * @param name the tool name
   * @param call the call's arguments and workspace (paths resolve against it, following its symlinks); without
   *   it, the decision by name alone
   * @returns the verdict
   */
  verdict(mode: string, name: string, call?: CallArguments): Verdict {
    const hints = this.hints(name);
    if (call === undefined) return authorize(this.modes, mode, { name, hints });
    // Made on first use: most calls meet no argument rule, and making either reads the file system.
    const { workspace, record } = call;
    return authorize(
      this.modes,
      mode,
      { name, arguments: call.arguments, hints },
      {
        resolvePath: onFirstUse(() => fsPathResolver(workspace, record ? { record } : {})),
        checkProgram: onFirstUse(() => fsProgramCheck(workspace)),
      },
    );
  }

  /**
   * Visibility, the soft layer's rule: by name, the tools some call to which is not denied (for a tool without
   * argument rules: its verdict is not deny).
   */
  visible(mode: string, name: string): boolean {
    return isVisible(this.modes, mode, name, this.hints(name));
  }

  /**
   * The hints a call to `name` is decided with: the registered tool's annotations (none declared: MCP's
   * defaults, since that tool is what runs), or for a name no plugin registered, undefined, so the policy's
   * tool catalog decides it as every other decider does.
   */
  private hints(name: string): Hints | undefined {
    const tool = this.lookup(name);
    return tool === undefined ? undefined : (hintsOf(tool.annotations) ?? {});
  }
}

/**
 * Maps MCP `ToolAnnotations` to the policy language's short hint names; absent hints stay absent, so the compiler
 * applies MCP's defaults.
 * @param annotations the tool's annotations, if any
 * @returns the hints, or undefined when the tool declares none
 */
export function hintsOf(annotations: ToolAnnotations | undefined): Hints | undefined {
  return hintsOfAnnotations(annotations);
}

/** A function that makes the real one (`make()`) when it is first called, then calls through to it. */
function onFirstUse<A extends unknown[], R>(make: () => (...args: A) => R): (...args: A) => R {
  let made: ((...args: A) => R) | undefined;
  return (...args) => (made ??= make())(...args);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
