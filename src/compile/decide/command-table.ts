/**
 * Judging a shell script against a rule's command patterns, through the shell analyser (`shell/`): every simple
 * command the script runs is a subject of its own, and whatever the analyser cannot explain is a fail-closed
 * subject. Bundled short options are split before matching (`sort -uo out` contains `-o`): a deny or ask pattern
 * fires on the words as written or split, and an allow must match both, so no option hides in a bundle.
 * @module
 */
import {
  extractCommands,
  folderMove,
  matchWords,
  splitShortOptions,
  type CommandPattern,
  type ShellWord,
  type SimpleCommand,
} from '../shell/index.js';
import { compareRestrictiveness } from './restrictiveness.js';
import type { ArgumentPattern, SubjectVerdict } from '../types.js';

/** How the table turns a match into a verdict. */
export interface ScriptCallbacks {
  /** `program` is set for an allow or ask of a {@link CONFIGURED_PROGRAMS} program, for the verdict to carry. */
  verdict(subject: string, index: number, program?: string): SubjectVerdict;
  unanalysable(subject: string, note: string): SubjectVerdict;
}

/** A command pattern as a table holds it: the pattern and, unless it has an error, its parsed words. */
export interface CommandRule extends ArgumentPattern {
  readonly command?: CommandPattern;
}

/**
 * Programs that also run what the workspace's own files configure (git: its repository's config and hooks). A
 * pattern's allow or ask for one of them is marked with `program`, so the call checks the workspace first.
 */
export const CONFIGURED_PROGRAMS: ReadonlySet<string> = new Set(['git']);

/**
 * Judges a script: one verdict per simple command, then one per reason it cannot be analysed.
 * @returns the verdicts, in source order
 */
export function judgeScript(
  script: string,
  patterns: readonly CommandRule[],
  callbacks: ScriptCallbacks,
): SubjectVerdict[] {
  const analysis = extractCommands(script);
  const out: SubjectVerdict[] = [];
  const commands = analysis.commands;
  // How the script moves to another folder (see `firstMove`), asked only once a configured program is allowed.
  let moved: string | null | undefined = null;
  for (const command of commands) {
    const index = pick(patterns, command.words);
    const configured =
      index >= 0 && patterns[index]!.decision !== 'deny' && CONFIGURED_PROGRAMS.has(command.name);
    if (configured && (moved === null ? (moved = firstMove(commands)) : moved) !== undefined) {
      // The workspace check reads the workspace's repository; after a move the program may read another.
      const note = `\`${command.name}\` may run in another folder than the workspace (${moved}), whose configuration the workspace check does not read`;
      out.push(callbacks.unanalysable(command.text, note));
      continue;
    }
    out.push(callbacks.verdict(command.text, index, configured ? command.name : undefined));
  }
  for (const reason of analysis.unanalysable) {
    const text = script.slice(reason.span.start, reason.span.end) || script;
    out.push(callbacks.unanalysable(text, reason.message));
  }
  if (out.length === 0) out.push(callbacks.verdict(script, -1));
  return out;
}

/** The first command of a script that makes a program run in another folder (see {@link folderMove}), or undefined. */
function firstMove(commands: readonly SimpleCommand[]): string | undefined {
  for (const command of commands) {
    const move = folderMove(command);
    if (move !== undefined) return move;
  }
  return undefined;
}

/**
 * The winning pattern for one command's words, or -1: the most specific match, then the most restrictive, then
 * the first written. Bundled short options are split (`-uo` is `-u -o`): an allow pattern must match both the
 * words as written and split, a deny or ask pattern either, so no option hides in a bundle.
 * @param patterns the table's patterns
 * @param words the command's words, the name first
 * @returns the index of the winning pattern
 */
export function pick(patterns: readonly CommandRule[], words: readonly ShellWord[]): number {
  const split = splitShortOptions(words);
  let best = -1;
  for (let i = 0; i < patterns.length; i++) {
    const p = patterns[i]!;
    const compiled = p.command;
    if (compiled === undefined || p.error !== undefined) continue;
    if (best >= 0) {
      const b = patterns[best]!;
      if (p.specificity < b.specificity) continue;
      if (p.specificity === b.specificity && compareRestrictiveness(p.decision, b.decision) <= 0) continue;
    }
    const forAllow = p.decision === 'allow';
    const asWritten = matchWords(compiled, words, forAllow);
    // Either form is enough for deny and ask, both are needed for allow: the second is asked only when it decides.
    const matched =
      split === words || asWritten !== forAllow ? asWritten : matchWords(compiled, split, forAllow);
    if (matched) best = i;
  }
  return best;
}
