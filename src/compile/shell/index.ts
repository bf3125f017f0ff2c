/**
 * The shell analyser and the command matcher: the one entry point for argument rules on shell scripts. Callers
 * see only these types, so the parser behind them can be swapped (see `docs/argument-rules.md`).
 */
export { extractCommands, MAX_NESTING, MAX_SCRIPT_LENGTH } from './extract.js';
export {
  matchCommand,
  matchWords,
  matchesProgram,
  parseCommandPattern,
  commandPatternSpecificity,
  wordMatches,
  type CommandPattern,
  type MatchOptions,
} from './match.js';
export { folderMove } from './folders.js';
export {
  GLOBAL_OPTIONS,
  readGlobalOptions,
  type GlobalOptions,
  type GlobalReading,
} from './global-options.js';
export { splitShortOptions } from './options.js';
export type * from './types.js';
