/**
 * The policies an agent's session is decided with: the same compiled deployment `check --config` and the gate use.
 * A session's workspace with a `cordis.yml` runs with that deployment's modes, and only when the user trusts the
 * file's exact content (`dsh-mode trust cordis.yml`, the record chat and acp read): a project file may come from
 * a cloned repository, and it can widen plan. A workspace without one runs with the built-in policies. Anything
 * that stops the policies from loading (an untrusted or changed file, a policy with an error) is a
 * {@link PolicyLoadError}, which the hook answers with a deny in every mode but `default`, which has no policy.
 * @module
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readHashed, trustStatus } from '../apps/trust.js';
import { compilePolicies, loadPolicySources, type CompiledPolicySet } from '../compile/index.js';
import type { Diagnostic } from '../compile/types.js';
import { deploymentPolicies, parseDeployment, whereOf } from '../deploy/index.js';

/** The deployment file a workspace may hold. */
export const DEPLOYMENT_FILE = 'cordis.yml';

/** The policies of a workspace. */
export interface AgentPolicies {
  policies: CompiledPolicySet;
  /** `cordis.yml`'s path, or `built-in` when the workspace has none. */
  source: string;
}

/** The policies cannot be used: every call in a mode other than `default` is denied with this message. */
export class PolicyLoadError extends Error {
  override readonly name = 'PolicyLoadError';
}

/**
 * Loads the policies a workspace's sessions are decided with.
 * @param workspace the session's folder
 * @param env the environment (where the trust records are)
 * @throws PolicyLoadError when the deployment is not trusted or does not load
 */
export async function loadAgentPolicies(workspace: string, env: NodeJS.ProcessEnv): Promise<AgentPolicies> {
  const file = join(workspace, DEPLOYMENT_FILE);
  if (!existsSync(file)) {
    const load = await loadPolicySources([], { builtin: true, cwd: workspace });
    refuse(load.diagnostics, 'the built-in policies');
    return { policies: compilePolicies(load.documents), source: 'built-in' };
  }
  let hashed;
  try {
    hashed = readHashed(file);
  } catch (error) {
    throw new PolicyLoadError(`${file} cannot be read: ${(error as Error).message}`);
  }
  const status = trustStatus(hashed, env);
  if (status !== 'trusted') {
    const why = status === 'changed' ? 'has changed since you trusted it' : 'is not trusted';
    throw new PolicyLoadError(
      `${file} ${why}, so its policies are not used and every call is denied outside the default mode; review it, then run: dsh-mode trust cordis.yml`,
    );
  }
  const read = parseDeployment(hashed.text, file, dirname(hashed.realPath));
  refuse(read.diagnostics, file);
  const deployed = await deploymentPolicies(file, read);
  refuse(deployed.diagnostics, file);
  if (!deployed.policies) throw new PolicyLoadError(`${file} has no policies to decide with`);
  return { policies: deployed.policies, source: file };
}

function refuse(diagnostics: readonly Diagnostic[], what: string): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return;
  const first = errors[0]!;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new PolicyLoadError(
    `${what} cannot load: ${first.file === null ? '' : `${whereOf(first)}: `}${first.message}${more}; run dsh-mode lint to see every error`,
  );
}
