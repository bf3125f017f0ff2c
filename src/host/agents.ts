/**
 * `ctx.agents`: creates agents on the reference loop and emits `agent/created` (contained: a throwing listener is
 * logged and does not stop the creation). Plugins seed per-agent state from `agent.options` there (the mode
 * engine reads `options.mode`).
 * @module
 */
import { Service, type Context } from 'cordis';
import { emitContained } from './contain.js';
import { LoopAgent } from './loop.js';
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

  constructor(ctx: Context) {
    super(ctx, 'agents');
  }

  /** Creates an agent and announces it on `agent/created`. */
  create(init: CreateAgentOptions): LoopAgent {
    if (!init?.session || !init.model) throw new Error('ctx.agents.create() needs a session and a model');
    this.state.count += 1;
    const agent = new LoopAgent(this.ctx, {
      id: `agent-${this.state.count}`,
      session: init.session,
      model: init.model,
      options: { ...init.options },
      ...(init.workspace !== undefined ? { workspace: init.workspace } : {}),
      ...(init.onChunk ? { onChunk: init.onChunk } : {}),
    });
    emitContained(this.ctx, 'agent/created', agent);
    return agent;
  }
}
