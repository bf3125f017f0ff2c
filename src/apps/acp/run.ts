/**
 * `dsh-mode acp`: starts the deployment and serves one ACP client over stdio until stdin closes or a signal
 * (SIGTERM, SIGINT, SIGHUP) ends it; either way the sessions close, so no lock is left behind. stdout carries
 * the protocol only: the deployment's warnings and our own errors go to stderr. The wire has size limits each way
 * (`nd-json.ts`).
 * @module
 */
import { Readable, Writable } from 'node:stream';
import {
  DeploymentError,
  planDeployment,
  startDeployment,
  TrustStoreError,
  UntrustedConfigError,
} from '../deployment.js';
import { createAcpAgent } from './agent-app.js';
import { boundedNdJsonStream } from './nd-json.js';
import { packageVersion } from '../version.js';

/** The signals that end the agent cleanly (sessions closed, locks released, servers stopped). */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** The options of `dsh-mode acp`. */
export interface AcpOptions {
  cwd: string;
  config?: string;
  modelScript?: string;
}

/**
 * Serves ACP on the process's stdin/stdout.
 * @returns the exit code: 0 when the client closed the connection, 1 for a found cordis.yml that is not trusted,
 *   2 when the deployment cannot start or the connection to the client failed (said on stderr), 130 when a
 *   signal (SIGTERM, SIGINT, SIGHUP) ended it after its sessions were closed
 */
export async function runAcp(options: AcpOptions): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  let runtime;
  try {
    // The embedded default runs the `mcp` plugin here: an editor's servers (Zed's context servers) start.
    runtime = await startDeployment(planDeployment({ cwd: options.cwd, config: options.config, mcp: true }), {
      workspace: options.cwd,
      ...(options.modelScript !== undefined ? { modelScript: options.modelScript } : {}),
      log,
      cwd: options.cwd,
    });
  } catch (error) {
    if (error instanceof DeploymentError) {
      log(`dsh-mode acp: the deployment cannot start:\n${error.message}`);
      return 2;
    }
    if (error instanceof UntrustedConfigError || error instanceof TrustStoreError) {
      log(`dsh-mode acp: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
  const agent = createAcpAgent(runtime, packageVersion());
  let stoppedBy: NodeJS.Signals | undefined;
  let unlisten = (): void => {};
  try {
    const wire = boundedNdJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      log,
    );
    const connection = agent.app.connect(wire.stream);
    // A signal ends the connection like a client that went away, so the sessions close (their locks go) and the
    // MCP servers stop before the process exits; a second signal of the same kind kills at once, as usual.
    const stop = (signal: NodeJS.Signals): void => {
      stoppedBy ??= signal;
      connection.close();
    };
    for (const signal of SIGNALS) process.once(signal, stop);
    unlisten = () => {
      for (const signal of SIGNALS) process.off(signal, stop);
    };
    await connection.closed;
    if (stoppedBy) {
      log(`dsh-mode acp: stopped by ${stoppedBy}`);
      return 130;
    }
    const failure = wire.failure();
    if (failure) {
      log(`dsh-mode acp: the connection to the client failed: ${failure.message}`);
      return 2;
    }
    return 0;
  } finally {
    agent.dispose();
    await runtime.dispose();
    unlisten();
    // The client still holds our stdin open; nothing more will be read from it.
    if (stoppedBy) process.stdin.destroy();
  }
}
