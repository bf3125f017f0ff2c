/**
 * `ctx.agents`: creates agents on the reference loop and emits `agent/created` (contained: a throwing listener is
 * logged and does not stop the creation). Plugins seed per-agent state from `agent.options` there (the mode
 * engine reads `options.mode`).
 * @module
 */
import { Service, type Context } from 'cordis';
import { containedEmit, containListeners, type ContainedListeners } from './contain.js';
import { LoopAgent, loopServices, type LoopServices } from './loop.js';
import type { Agent, AgentOptions, Model, ModelChunk, Session } from './types.js';

declare module 'cordis' {
  interface Context {
    agents: AgentsService;
  }
  interface Events {
    /** A new agent exists; it has not run a turn yet. */
    'agent/created'(agent: Agent): void;
  }
}

/** What `ctx.agents.create()` takes. */
export interface CreateAgentOptions {
  session: Session;
  model: Model;
  options?: AgentOptions;
  /** The workspace its tools work in; default the host's. */
  workspace?: string;
  /** Streamed answer text, as it arrives. */
  onChunk?: (chunk: ModelChunk) => void;
}

/** The `ctx.agents` service. */
export class AgentsService extends Service {
  static inject = ['systemPrompt', 'tools'];
  private readonly state = { count: 0 };
  /**
   * The services every agent calls on its hot path, resolved once: through the context each lookup costs tens
   * of microseconds per agent. Safe to keep: they are injected, so replacing either reloads this service.
   */
  private services: LoopServices | undefined;
  /** The app's contained listeners, resolved once (through the context, each lookup costs microseconds). */
  private readonly lists: ContainedListeners;

  constructor(ctx: Context) {
    super(ctx, 'agents');
    this.lists = containListeners(ctx);
  }

  /** Creates an agent and announces it on `agent/created`. */
  create(init: CreateAgentOptions): LoopAgent {
    if (!init?.session || !init.model) throw new Error('ctx.agents.create() needs a session and a model');
    this.state.count += 1;
    this.services ??= loopServices(this.ctx);
    const agent = new LoopAgent(this.services, {
      id: `agent-${this.state.count}`,
      session: init.session,
      model: init.model,
      options: { ...init.options },
      ...(init.workspace !== undefined ? { workspace: init.workspace } : {}),
      ...(init.onChunk ? { onChunk: init.onChunk } : {}),
    });
    containedEmit(this.ctx, 'agent/created', [agent], this.lists);
    return agent;
  }
}
