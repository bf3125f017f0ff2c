/**
 * Judging a shell script against a rule's command patterns, through the shell analyser (`shell/`): every simple
 * command the script runs is a subject of its own, and whatever the analyser cannot explain is a fail-closed
 * subject. Bundled short options are split before matching (`sort -uo out` contains `-o`): a deny or ask pattern
 * fires on the words as written or split, and an allow must match both, so no option hides in a bundle. A deny or
 * ask pattern also fires on the words past the program's global options (`git -C . push` is `git push` too),
 * while an allow is matched against the words as written only.
 * @module
 */
import {
  extractCommands,
  folderMove,
  matchWords,
  matchesProgram,
  readGlobalOptions,
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
  /** One command's verdict by the pattern at `index`, with the workspace check's conditions for git. */
  const judge = (command: SimpleCommand, index: number): SubjectVerdict => {
    const configured =
      index >= 0 && patterns[index]!.decision !== 'deny' && CONFIGURED_PROGRAMS.has(command.name);
    if (configured && (moved === null ? (moved = firstMove(commands)) : moved) !== undefined) {
      // The workspace check reads the workspace's repository; after a move the program may read another.
      const note = `\`${command.name}\` may run in another folder than the workspace (${moved}), whose configuration the workspace check does not read`;
      return callbacks.unanalysable(command.text, note);
    }
    return callbacks.verdict(command.text, index, configured ? command.name : undefined);
  };
  for (const command of commands) {
    const literal = judge(command, pick(patterns, command.words));
    const past = pickPastGlobalOptions(patterns, command);
    if (past === undefined) {
      out.push(literal);
      continue;
    }
    let v = judge(command, past.index);
    if (past.unknown !== undefined && v.note === undefined) {
      const note = `\`${past.unknown.text}\` is not a global option of \`${command.name}\` this analyser knows, so its deny and ask patterns are assumed to match`;
      v = { ...v, note };
    }
    out.push(stricter(literal, v));
  }
  for (const reason of analysis.unanalysable) {
    const text = script.slice(reason.span.start, reason.span.end) || script;
    out.push(callbacks.unanalysable(text, reason.message));
  }
  if (out.length === 0) out.push(callbacks.verdict(script, -1));
  return out;
}

/**
 * The verdict that holds when a command is judged as written (`literal`) and past its global options (`past`, a
 * deny or ask): the more restrictive; where the literal form abstains, a deny holds and an ask holds while the rest
 * of the policy decides too, so skipping options never makes a decision less restrictive.
 */
function stricter(literal: SubjectVerdict, past: SubjectVerdict): SubjectVerdict {
  if (past.decision === undefined) return literal;
  if (literal.decision === undefined) return past.decision === 'deny' ? past : { ...past, abstains: true };
  return compareRestrictiveness(past.decision, literal.decision) > 0 ? past : literal;
}

/**
 * The deny or ask pattern that decides a command once its program's global options are skipped (`git -C . push`
 * is judged as `git push` too; see `readGlobalOptions`), or undefined when there is none, the program has no
 * table, or no option was skipped. Past an option the table does not know, the subcommand cannot be placed: every
 * deny and ask pattern of the program is assumed to match, and the most restrictive (then the most specific, then
 * the first written) is the one. An allow pattern that wins past the options only keeps the deny from firing: it
 * allows nothing there, since allows are matched against the words as written alone.
 * @param patterns the table's patterns
 * @param command the command's name and words
 * @returns the pattern's index, and the unknown option when the subcommand could not be placed
 */
export function pickPastGlobalOptions(
  patterns: readonly CommandRule[],
  command: Pick<SimpleCommand, 'name' | 'words'>,
): { index: number; unknown?: ShellWord } | undefined {
  const reading = readGlobalOptions(command.name, command.words);
  if (reading === undefined) return undefined;
  const name = command.words[0]!;
  if (reading.unknown !== undefined) {
    let best = -1;
    for (let i = 0; i < patterns.length; i++) {
      const p = patterns[i]!;
      if (p.decision === 'allow' || p.command === undefined || p.error !== undefined) continue;
      if (!matchesProgram(p.command, name)) continue;
      if (best >= 0) {
        const b = patterns[best]!;
        const order = compareRestrictiveness(p.decision, b.decision);
        if (order < 0 || (order === 0 && p.specificity <= b.specificity)) continue;
      }
      best = i;
    }
    return best < 0 ? undefined : { index: best, unknown: reading.unknown };
  }
  const same =
    reading.words.length === command.words.length && reading.words.every((w, i) => w === command.words[i]);
  if (same) return undefined;
  const index = pick(patterns, reading.words);
  return index >= 0 && patterns[index]!.decision !== 'allow' ? { index } : undefined;
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
