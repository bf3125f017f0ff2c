/**
 * `dsh-mode acp`: starts the deployment and serves one ACP client over stdio until stdin closes. stdout carries
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

/** The options of `dsh-mode acp`. */
export interface AcpOptions {
  cwd: string;
  config?: string;
  modelScript?: string;
}

/**
 * Serves ACP on the process's stdin/stdout.
 * @returns the exit code: 0 when the client closed the connection, 1 for a found cordis.yml that is not trusted,
 *   2 when the deployment cannot start or the connection to the client failed (said on stderr)
 */
export async function runAcp(options: AcpOptions): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  let runtime;
  try {
    runtime = await startDeployment(planDeployment({ cwd: options.cwd, config: options.config }), {
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
  try {
    const wire = boundedNdJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      log,
    );
    const connection = agent.app.connect(wire.stream);
    await connection.closed;
    const failure = wire.failure();
    if (failure) {
      log(`dsh-mode acp: the connection to the client failed: ${failure.message}`);
      return 2;
    }
    return 0;
  } finally {
    agent.dispose();
    await runtime.dispose();
  }
}
