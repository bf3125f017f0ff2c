/**
 * What the shell red teams share: the built-in plan, compiled, and a script run as the host's bash tool runs it
 * (`--norc --noprofile`, stdin closed, the tool's environment), so what a test sees run is what an agent's call
 * would run.
 */
import { spawnSync } from 'node:child_process';
import { compilePolicies, loadPolicySources, type CompiledPolicy } from '../../src/compile/api.js';
import { shellEnvironment } from '../../src/host/tools/bash.js';

/** The built-in plan mode, compiled. */
export const builtinPlan: CompiledPolicy = compilePolicies((await loadPolicySources([])).documents).get(
  'plan',
)!;

/**
 * Runs a script as the host's bash tool does.
 * @param command the script
 * @param cwd the folder it runs in
 * @param home its HOME (no system git configuration is read either)
 * @param env more variables
 */
export function hostBash(command: string, cwd: string, home: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', command], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
    env: { ...shellEnvironment(process.env), HOME: home, GIT_CONFIG_NOSYSTEM: '1', ...env },
  });
}
