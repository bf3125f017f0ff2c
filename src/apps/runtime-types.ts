/**
 * What a started deployment gives the apps (`chat`, `acp`): the cordis context with the host and any plugins
 * applied, the model agents use, and typed access to the optional services. Type-only.
 * @module
 */
import type { Context } from 'cordis';
import type { LoopAgent } from '../host/loop.js';
import type { AgentOptions, Model, ModelChunk, Session } from '../host/types.js';
import type { ModesService } from '../engine/service.js';

/** Options of `Runtime.createAgent()`. */
export interface RuntimeAgentInit {
  session: Session;
  /** The folder its tools work in; default the deployment's workspace. */
  workspace?: string;
  options?: AgentOptions;
  onChunk?: (chunk: ModelChunk) => void;
}

/** A started deployment. */
export interface Runtime {
  readonly ctx: Context;
  /** The deployment's workspace (the CLI's `--workspace`, or the current folder). */
  readonly workspace: string;
  /** The model every agent of this deployment uses. */
  readonly model: Model;
  /**
   * The mode new sessions start in when the user names none: `plan` with the demo model (its script is a
   * plan-mode walk-through, and plan mode keeps its writes behind an approval), otherwise none (`default`).
   */
  readonly startMode: string | undefined;
  /** `ctx.modes` when the mode plugin is part of the deployment. */
  readonly modes: ModesService | undefined;
  /** Creates an agent on the host with this deployment's model. */
  createAgent(init: RuntimeAgentInit): LoopAgent;
  /** Takes every plugin down, in reverse order. */
  dispose(): Promise<void>;
}
