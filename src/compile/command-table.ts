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
const FOR_ALLOW = { forAllow: true } as const;
const FOR_DENY = { forAllow: false } as const;

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

/**
 * Which patterns can match a command, by its name: a pattern whose first word is a literal matches only a command
 * of that name (or, with a `/` in the command's name, that basename or path), so it is tried only for those.
 */
interface NameIndex {
  /** Pattern indices by the literal first word. */
  readonly byName: ReadonlyMap<string, readonly number[]>;
  /** Patterns whose first word is not a literal (`**`, a `*` glob), or that have no words. */
  readonly others: readonly number[];
  /** Every pattern. */
  readonly all: readonly number[];
  /** Each pattern parsed (undefined for one with an error). */
  readonly parsed: readonly (CommandPattern | undefined)[];
  /** Candidates by command name, merged in pattern order (bounded). */
  readonly merged: Map<string, readonly number[]>;
}

/** Most command names whose candidate lists one table keeps. */
const MERGED_LIMIT = 1024;
const indices = new WeakMap<readonly ArgumentPattern[], NameIndex>();

function indexOf(patterns: readonly ArgumentPattern[]): NameIndex {
  let index = indices.get(patterns);
  if (index !== undefined) return index;
  const byName = new Map<string, number[]>();
  const others: number[] = [];
  const all: number[] = [];
  const parsed: (CommandPattern | undefined)[] = [];
  patterns.forEach((p, i) => {
    all.push(i);
    parsed.push(p.error === undefined ? parsedOf(p) : undefined);
    const first = parsed[i]?.words[0];
    if (first === undefined || first.kind !== 'word' || first.re !== undefined) others.push(i);
    else {
      const list = byName.get(first.text);
      if (list) list.push(i);
      else byName.set(first.text, [i]);
    }
  });
  index = { byName, others, all, parsed, merged: new Map() };
  indices.set(patterns, index);
  return index;
}

/** The patterns worth trying for a command name, in pattern order. */
function candidates(index: NameIndex, name: ShellWord): readonly number[] {
  // An unknown name matches any deny pattern, and a path is also matched by its basename: try everything.
  if (!name.known || name.value.includes('/')) return index.all;
  const value = name.value;
  let list = index.merged.get(value);
  if (list === undefined) {
    const named = index.byName.get(value);
    list = named === undefined ? index.others : [...named, ...index.others].sort((a, b) => a - b);
    if (index.merged.size >= MERGED_LIMIT) index.merged.clear();
    index.merged.set(value, list);
  }
  return list;
}

/** The winning pattern for one command's words, or -1. */
function pick(patterns: readonly ArgumentPattern[], words: readonly ShellWord[]): number {
  const split = splitShortOptions(words);
  const differs = split.length !== words.length;
  let best = -1;
  const index = indexOf(patterns);
  for (const i of candidates(index, words[0]!)) {
    const p = patterns[i]!;
    const compiled = index.parsed[i];
    if (compiled === undefined) continue;
    if (best >= 0) {
      const b = patterns[best]!;
      if (p.specificity < b.specificity) continue;
      if (p.specificity === b.specificity && RANK[p.decision] <= RANK[b.decision]) continue;
    }
    const forAllow = p.decision === 'allow';
    const how = forAllow ? FOR_ALLOW : FOR_DENY;
    const asWritten = matchCommand(compiled, words, how);
    const asSplit = differs ? matchCommand(compiled, split, how) : asWritten;
    // An allow must hold for both forms, a deny or ask fires on either.
    if (forAllow ? asWritten && asSplit : asWritten || asSplit) best = i;
  }
  return best;
}
