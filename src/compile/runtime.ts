/**
 * The compiler's deciding half, for a process that starts before every tool call (`dsh-mode hook`): compiling
 * documents that were already read and validated, and the workspace checks a decision makes. It imports nothing
 * that parses or validates policy text (no YAML parser, no schema validator), so a bundle that needs only this
 * stays small. Other layers import it, `index.ts` or `types.ts`, nothing else of compile
 * (`test/architecture.test.ts`).
 * @module
 */
export { compilePolicies, type CompiledPolicySet } from './decide/compile.js';
export { fsPathResolver } from './decide/fs-path-resolver.js';
export { fsProgramCheck } from './decide/fs-program-check.js';
