/**
 * The models: a scripted one (deterministic; the embedded default and the test double) and an OpenAI-compatible
 * chat-completions adapter.
 * @module
 */
export { chunkText, scriptedModel, type ScriptedModel, type ScriptEntry } from './scripted.js';
export { loadScript, parseScript } from './script-file.js';
export { openaiModel, toWireMessages, type OpenAIModelOptions } from './openai.js';
