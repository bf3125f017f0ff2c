/**
 * The reference agent host: session journal (`ctx.sessions`), prompt assembly (`ctx.systemPrompt`), tool runtime
 * (`ctx.tools`) with the approval seam (`ctx.approval`), agents on the loop (`ctx.agents`), models and built-in
 * tools. See README.md in this folder for the seams and how a plugin uses them.
 * @module
 */
export * from './types.js';
export { applyHost, HostPlugin, type HostConfig } from './host.js';
export { SessionsService, newId, type SessionsConfig, type CreateSessionOptions } from './sessions.js';
export { JournalSession, openTurn } from './session.js';
export { parseJournal, readJournal } from './journal-file.js';
export { SystemPromptService } from './system-prompt.js';
export { ToolsService, denialText, type ToolsConfig } from './tool-runtime.js';
export { ApprovalService } from './approval.js';
export { AgentsService, type CreateAgentOptions } from './agents.js';
export { LoopAgent, DEFAULT_MAX_STEPS } from './loop.js';
export {
  applyDelta,
  diffHeaders,
  foldRequestHeader,
  planHeaderLog,
  replayHeaders,
  type HeaderLog,
} from './headers.js';
export { buildTranscript } from './transcript.js';
export * from './models/index.js';
export * from './tools/index.js';
