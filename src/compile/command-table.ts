/**
 * Judging a shell script against a rule's command patterns. Until the shell analyser is wired in, no script can
 * be analysed, so every script fails closed: `ask` when the rule's base is `allow`, otherwise the base.
 * @module
 */
import type { SubjectVerdict } from './argument-tables.js';
import type { ArgumentPattern } from './types.js';

/** How the table turns a match into a verdict. */
export interface ScriptCallbacks {
  verdict(subject: string, index: number): SubjectVerdict;
  unanalysable(subject: string, note: string): SubjectVerdict;
}

/**
 * The specificity of a command pattern: its count of literal characters (`*` and `**` count 0).
 * @returns the count
 */
export function commandSpecificity(pattern: string): number {
  return pattern.replace(/[\s*]/g, '').length;
}

/**
 * Judges a script.
 * @returns the verdicts, in source order
 */
export function judgeScript(
  script: string,
  _patterns: readonly ArgumentPattern[],
  callbacks: ScriptCallbacks,
): SubjectVerdict[] {
  return [callbacks.unanalysable(script, 'the shell analyser is not available')];
}
