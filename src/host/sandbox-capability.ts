/**
 * What the host knows about the OS sandbox on this machine: one probe per process ({@link hostSandboxSupport}),
 * asked the first time a verdict requires a sandbox. It is a capability check, not a decision cache: what a call
 * may do is decided afresh each time, and a call the probe lets through still runs only if `runSandboxed` can
 * start it (the bash tool refuses otherwise). {@link sandboxDenyReason} words the deny for a call that requires a
 * sandbox where none can start.
 * @module
 */
import { sandboxSupport, type SandboxSupport } from './sandbox/index.js';
import type { SandboxRequirement } from './types.js';

let probe: Promise<SandboxSupport> | undefined;

/**
 * Whether this machine can start the OS sandbox, probed once per process (the probe runs a real command in it).
 * @returns the probe's answer
 */
export function hostSandboxSupport(): Promise<SandboxSupport> {
  probe ??= sandboxSupport();
  return probe;
}

/**
 * The deny reason for a call that requires a sandbox this machine cannot start: what requires it, what is
 * missing, and how to install it.
 * @param name the tool
 * @param required the requirement, with the `sandbox` key that set it
 * @param support what the probe found
 * @returns one sentence for the model and the user
 */
export function sandboxDenyReason(
  name: string,
  required: SandboxRequirement,
  support: SandboxSupport,
): string {
  const rule = required.rule;
  const where =
    rule?.file != null
      ? ` (\`sandbox: ${required.kind}\` at ${rule.file}:${rule.line ?? '?'}:${rule.column ?? '?'})`
      : '';
  const why = support.reason ?? 'the sandbox is not available';
  // The probe runs once per process: a sandbox installed now is seen by the next start.
  const how = support.howToInstall ? `; ${support.howToInstall} Then start dsh-mode again.` : '';
  return `tool "${name}" must run in a ${required.kind} OS sandbox in this mode${where}, and none can start on this machine, so it was denied and nothing ran: ${why}${how}`;
}
