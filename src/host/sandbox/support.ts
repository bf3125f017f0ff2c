/**
 * Whether the sandbox works on this machine ({@link sandboxSupport}): for `dsh-mode doctor`, and for a mode that
 * requires a sandbox to deny `bash` with a reason that says how to install one. It answers by running a real
 * command in the sandbox, one that forks a child, so that what it reports is what a call would meet: bwrap
 * present and able to make its namespaces, `bash` present, a process limit that still lets a command fork,
 * and on a root host a pids cgroup. Nothing is cached: the answer is as fresh as the call.
 * @module
 */
import { runSandboxed } from './run.js';
import type { SandboxRequest, SandboxSupport } from './types.js';

/** How long the probe may take before it counts as not working. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Probes the sandbox.
 * @param options.hostEnv the host environment to look programs up in (default `process.env`)
 */
export async function sandboxSupport(
  options: { hostEnv?: SandboxRequest['hostEnv'] } = {},
): Promise<SandboxSupport> {
  const outcome = await runSandboxed({
    workspace: '/',
    command: { argv: ['/bin/sh', '-c', 'true & wait $!'] },
    timeoutMs: PROBE_TIMEOUT_MS,
    ...(options.hostEnv ? { hostEnv: options.hostEnv } : {}),
  });
  const kind = process.platform === 'linux' ? 'bwrap' : 'none';
  if (outcome.kind === 'refused')
    return { available: false, kind, reason: outcome.reason, howToInstall: outcome.howToInstall };
  if (outcome.exitCode !== 0)
    return {
      available: false,
      kind,
      reason: `a test command failed in the sandbox (${outcome.timedOut ? 'timed out' : `exit code ${outcome.exitCode}`}): ${outcome.output.trim()}`,
      howToInstall: 'Check that the kernel is Linux 5.14 or later (per-namespace process limits).',
    };
  return { available: true, kind, limits: outcome.limits, howToInstall: '' };
}
