/**
 * The OS sandbox for commands: {@link runSandboxed} runs one command read-only, offline, limited and alone, or
 * refuses; {@link sandboxSupport} says whether that works on this machine. See README.md for the contract.
 * @module
 */
export { runSandboxed, SANDBOX_OUTPUT_CAP, INSTALL_BWRAP } from './run.js';
export { sandboxSupport } from './support.js';
export { DEFAULT_SANDBOX_LIMITS } from './limits.js';
export { sandboxEnvironment, mayAddVariable } from './environment.js';
export { hiddenFolders } from './mounts.js';
export type {
  SandboxCommand,
  SandboxLimitKind,
  SandboxLimits,
  SandboxOutcome,
  SandboxRan,
  SandboxRefused,
  SandboxRequest,
  SandboxSupport,
} from './types.js';
