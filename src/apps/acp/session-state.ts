/**
 * One ACP session on the agent side: the journal, the agent that runs its turns, and an ordered outbox of
 * `session/update` notifications. Every update goes through the outbox, so updates reach the client in the
 * order their events were logged, and `flush()` lets `session/prompt` answer only after every update of its turn
 * was written (docs/apps.md).
 * @module
 */
import type { AgentContext, SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import type { LoopAgent } from '../../host/loop.js';

/** The agent-side state of one ACP session. */
export class AcpSession {
  /** The last mode the client was told about (advertised or `current_mode_update`). */
  lastMode: string | null = null;
  /** The running turn's cancel switch. */
  turn: AbortController | null = null;
  /** True once a chunk of the current step's answer was streamed (its `assistant/message` then adds none). */
  streamedStep = false;
  /** Settles once the client's MCP servers for this session have started or failed (never rejects). */
  servers: Promise<void> = Promise.resolve();
  #outbox: Promise<void> = Promise.resolve();
  #failed: unknown = null;

  /**
   * @param id the ACP session id (the journal's id)
   * @param cwd the session's workspace
   * @param agent the agent on the host
   * @param client the connection to the client (updates and permission requests)
   * @param options the config options with a given mode selected (absent without modes)
   */
  constructor(
    readonly id: string,
    readonly cwd: string,
    readonly agent: LoopAgent,
    readonly client: AgentContext,
    readonly options?: (mode: string) => SessionConfigOption[],
  ) {}

  /** Queues one update behind the ones before it. */
  send(update: SessionUpdate): void {
    this.#outbox = this.#outbox.then(async () => {
      try {
        await this.client.notify('session/update', { sessionId: this.id, update });
      } catch (error) {
        // A closed connection fails every later notification too; remember the first for flush().
        this.#failed ??= error;
      }
    });
  }

  /**
   * Queues the mode updates when `mode` differs from what the client was last told: `current_mode_update` and
   * `config_option_update` together, so a client that follows either view stays in step.
   */
  notifyMode(mode: string): void {
    if (mode === this.lastMode) return;
    this.lastMode = mode;
    this.send({ sessionUpdate: 'current_mode_update', currentModeId: mode });
    if (this.options) this.send({ sessionUpdate: 'config_option_update', configOptions: this.options(mode) });
  }

  /** Resolves once every queued update was handed to the transport. */
  async flush(): Promise<void> {
    await this.#outbox;
  }
}
