/**
 * The engine's state for one plugin instance: the resolved modes, the per-session fold and the pending intents.
 * Both layers decide through `authorize()` (`verdict`), with the registered tool's annotations as hints, so the
 * tool view and the gate always come from the same table (visibility = the decision is not deny).
 *
 * Nothing here is module-global: disposing the plugin drops this object, and a reload starts clean.
 * @module
 */
import type { Hints } from '../compile/types.js';
import type { Session, ToolAnnotations, ToolLookup } from '../host/types.js';
import { dependsOnArguments } from '../compile/call.js';
import type { ResolvedModes } from '../deploy/modes.js';
import { fsPathResolver } from '../compile/fs-path-resolver.js';
import { fsProgramCheck } from '../compile/fs-program-check.js';
import { allowedInDefault, authorize, isVisible, type Verdict } from './authorize.js';
import { ModeFoldCache } from './fold.js';
import { removeIntent, writeIntent } from './intent-file.js';
import { DEFAULT_MODE } from './vocabulary.js';
import { hintsOfAnnotations } from '../compile/catalog.js';

/** A flip waiting for the next boundary. `narrate` is false for the tool-driven exit (its result narrates it). */
export interface Intent {
  readonly mode: string;
  readonly narrate: boolean;
}

/** A call's arguments and the workspace its paths resolve against, for the gate. */
export interface CallArguments {
  readonly arguments: unknown;
  readonly workspace: string;
}

/** Finds a registered tool by name (`ctx.tools.lookup()`), for its annotations. */
export type { ToolLookup };

/** The state of one engine instance. */
export class ModeCore {
  /** The landed mode per session. */
  readonly folds = new ModeFoldCache();
  readonly #intents = new WeakMap<Session, Intent>();
  #disposed = false;
  /**
   * Memoised verdicts of calls whose arguments cannot change the decision, by mode, then tool name. The memo is
   * valid for the registry revision it was filled at (a verdict depends on the registered tool's annotations), so
   * after any registration or removal every tool is judged afresh. The policies never change for this instance (a
   * reload is a new instance). Bounded: a map that grows past its limit is cleared.
   */
  readonly #memo = new Map<string, Map<string, Verdict>>();
  /** The registry revision the memo holds for. */
  #memoRevision = -1;
  /** The table of the mode last judged in (`#memo.get(#recentMode)`), or undefined. */
  #recent: Map<string, Verdict> | undefined;
  #recentMode = '';

  /**
   * @param modes the resolved configuration
   * @param lookup finds registered tools, for their hints
   * @param revision the registry's revision (`ctx.tools.revision()`): the memo is dropped when it changes
   * @param warn where a failed clean-up of a recorded intent is reported
   */
  constructor(
    readonly modes: ResolvedModes,
    private readonly lookup: ToolLookup,
    private readonly revision: () => number,
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

  /**
   * Parks (or replaces) the session's pending intent, waking the session first: the engine's hooks skip quiet
   * sessions, and this one now has an intent to land.
   */
  park(session: Session, intent: Intent): void {
    try {
      session.wake?.();
    } catch {
      // Only a session of another implementation can throw here, and the host never counts one as quiet.
    }
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
   * one registered, such as a hallucinated or foreign-added name, gets MCP's default hints).
   * @param mode the mode to judge in (the landed one, for the gate and the filter)
   * @param name the tool name
   * @returns the verdict
   */
  verdict(mode: string, name: string, call?: CallArguments): Verdict {
    return this.memoised(mode, name) ?? this.decide(mode, name, call);
  }

  /**
   * The memoised verdict for a tool in a mode, if one is known and still valid (the registered tool is the one it
   * was computed with); undefined when {@link verdict} must decide (a first call, or one whose arguments decide).
   * The gate's hot path: a table hit needs no call object.
   */
  memoised(mode: string, name: string): Verdict | undefined {
    if (this.#memoRevision !== this.revision()) return undefined;
    // Consecutive calls are nearly always judged in the same mode: its table is kept at hand.
    let byName = this.#recent;
    if (byName === undefined || this.#recentMode !== mode) {
      byName = this.#memo.get(mode);
      if (byName === undefined) return undefined;
      this.#recent = byName;
      this.#recentMode = mode;
    }
    return byName.get(name);
  }

  /**
   * {@link verdict} without the memo lookup, for a caller that has just asked {@link memoised} and missed (the gate):
   * decides, and memoises what the arguments do not decide.
   */
  decide(mode: string, name: string, call: CallArguments | undefined): Verdict {
    const revision = this.revision();
    if (this.#memoRevision !== revision) {
      // A tool was registered or removed: its annotations (the hints) may differ, so nothing kept holds.
      this.#memo.clear();
      this.#recent = undefined;
      this.#memoRevision = revision;
    }
    const tool = this.lookup(name);
    let byName = this.#memo.get(mode);
    const hints = hintsOf(tool?.annotations);
    const policy = mode === DEFAULT_MODE ? undefined : this.modes.get(mode);
    if (policy !== undefined && dependsOnArguments(policy, name, hints)) {
      // Never memoised: the arguments decide. Paths resolve against the agent's workspace, following its symlinks.
      if (call === undefined) return authorize(this.modes, mode, { name, hints });
      const resolvePath = fsPathResolver(call.workspace);
      const checkProgram = fsProgramCheck(call.workspace);
      return authorize(
        this.modes,
        mode,
        { name, arguments: call.arguments, hints },
        { resolvePath, checkProgram },
      );
    }
    const verdict = Object.freeze(authorize(this.modes, mode, { name, hints }));
    if (byName === undefined) {
      if (this.#memo.size >= MEMO_MODES) {
        this.#memo.clear();
        this.#recent = undefined;
      }
      byName = new Map();
      this.#memo.set(mode, byName);
    }
    if (byName.size >= MEMO_TOOLS) byName.clear();
    byName.set(name, verdict);
    return verdict;
  }

  /**
   * Visibility, the soft layer's rule: by name, the tools some call to which is not denied (for a tool without
   * argument rules: its verdict is not deny).
   */
  visible(mode: string, name: string): boolean {
    // The default mode's rule needs no hints (asked every step for every tool).
    if (mode === DEFAULT_MODE) return allowedInDefault(name);
    return isVisible(this.modes, mode, name, hintsOf(this.lookup(name)?.annotations));
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

/** How many modes and tools per mode the verdict memo holds before it starts over. */
const MEMO_MODES = 64;
const MEMO_TOOLS = 4096;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
