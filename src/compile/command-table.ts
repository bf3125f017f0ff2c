/**
 * Judging a shell script against a rule's command patterns, through the shell analyser (`shell/`): every simple
 * command the script runs is a subject of its own, and whatever the analyser cannot explain is a fail-closed
 * subject. Bundled short options are split before matching (`sort -uo out` contains `-o`): a deny or ask pattern
 * fires on the words as written or split, and an allow must match both, so no option hides in a bundle.
 * @module
 */
import {
  extractCommands,
  matchCommand,
  parseCommandPattern,
  splitShortOptions,
  type CommandPattern,
  type ShellWord,
} from './shell/index.js';
import type { ArgumentPattern, Decision, SubjectVerdict } from './types.js';

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
  return parseCommandPattern(pattern).specificity;
}

const parsed = new WeakMap<ArgumentPattern, CommandPattern>();

function parsedOf(pattern: ArgumentPattern): CommandPattern {
  let p = parsed.get(pattern);
  if (p === undefined) parsed.set(pattern, (p = parseCommandPattern(pattern.source)));
  return p;
}

const RANK: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

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
  patterns: readonly ArgumentPattern[],
  callbacks: ScriptCallbacks,
): SubjectVerdict[] {
  const analysis = extractCommands(script);
  const out: SubjectVerdict[] = [];
  for (const command of analysis.commands) {
    const v = callbacks.verdict(command.text, pick(patterns, command.words));
    const configured =
      CONFIGURED_PROGRAMS.has(command.name) && v.pattern !== undefined && v.decision !== 'deny';
    out.push(configured ? { ...v, program: command.name } : v);
  }
  for (const reason of analysis.unanalysable) {
    const text = script.slice(reason.span.start, reason.span.end) || script;
    out.push(callbacks.unanalysable(text, reason.message));
  }
  if (out.length === 0) out.push(callbacks.verdict(script, -1));
  return out;
}

/** The winning pattern for one command's words, or -1. */
function pick(patterns: readonly ArgumentPattern[], words: readonly ShellWord[]): number {
  const split = splitShortOptions(words);
  const differs = split.length !== words.length;
  let best = -1;
  for (let i = 0; i < patterns.length; i++) {
    const p = patterns[i]!;
    if (p.error !== undefined) continue;
    if (best >= 0) {
      const b = patterns[best]!;
      if (p.specificity < b.specificity) continue;
      if (p.specificity === b.specificity && RANK[p.decision] <= RANK[b.decision]) continue;
    }
    const forAllow = p.decision === 'allow';
    const compiled = parsedOf(p);
    const asWritten = matchCommand(compiled, words, { forAllow });
    const asSplit = differs ? matchCommand(compiled, split, { forAllow }) : asWritten;
    // An allow must hold for both forms, a deny or ask fires on either.
    if (forAllow ? asWritten && asSplit : asWritten || asSplit) best = i;
  }
  return best;
}
