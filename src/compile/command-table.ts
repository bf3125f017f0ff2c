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
  matchCommand,
  matchWords,
  parseCommandPattern,
  splitShortOptions,
  type CommandPattern,
  type ShellWord,
  type SimpleCommand,
} from './shell/index.js';
import type { ArgumentPattern, Decision, SubjectVerdict } from './types.js';

/** How the table turns a match into a verdict. */
export interface ScriptCallbacks {
  /** `program` is set for an allow or ask of a {@link CONFIGURED_PROGRAMS} program, for the verdict to carry. */
  verdict(subject: string, index: number, program?: string): SubjectVerdict;
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
/** The same, as a list: compared by equality, a fresh name is not hashed (a runtime call in V8) for the set. */
const CONFIGURED_LIST: readonly string[] = [...CONFIGURED_PROGRAMS];

function isConfiguredProgram(name: string): boolean {
  for (let i = 0; i < CONFIGURED_LIST.length; i++) if (CONFIGURED_LIST[i] === name) return true;
  return false;
}

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
  const commands = analysis.commands;
  const byName = commands.length === 0 ? undefined : indexOf(patterns);
  // How the script moves to another folder (see `firstMove`), asked only once a configured program is allowed.
  let moved: string | null | undefined = null;
  for (let c = 0; c < commands.length; c++) {
    const command = commands[c]!;
    // A known name has a `path` exactly when it has a `/` (the analyser's record), so no second search for one.
    const index = pickIn(byName!, patterns, command.words, command.path !== undefined);
    // Made with its program in one go: a spread copy of the verdict is far slower than the verdict.
    const configured =
      index >= 0 && patterns[index]!.decision !== 'deny' && isConfiguredProgram(command.name);
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
  for (let c = 0; c < commands.length; c++) {
    const move = folderMove(commands[c]!);
    if (move !== undefined) return move;
  }
  return undefined;
}

/**
 * Which patterns can match a command, by its name: a pattern whose first word is a literal matches only a command
 * of that name (or, with a `/` in the command's name, that basename or path), so it is tried only for those. Every
 * list is in the order patterns win in (most specific, then most restrictive, then first written), so the first
 * that matches is the winner.
 */
interface NameIndex {
  /** Pattern indices by the literal first word. */
  readonly byName: ReadonlyMap<string, readonly number[]>;
  /** Patterns whose first word is not a literal (`**`, a `*` glob), or that have no words. */
  readonly others: readonly number[];
  /** Every pattern without an error. */
  readonly all: readonly number[];
  /** Each pattern parsed (undefined for one with an error). */
  readonly parsed: readonly (CommandPattern | undefined)[];
  /**
   * Each pattern's second word when it is a literal after a first word that is not `**`: that word must match the
   * command's second word (as written or split), so a command whose second word differs is not tried.
   */
  readonly second: readonly (string | undefined)[];
  /**
   * Candidates by command name, merged: a direct-mapped cache by {@link nameSlot}, each entry checked by its name
   * (a name is not hashed for a map: hashing a fresh string is a runtime call in V8).
   */
  readonly merged: (NameSlot | undefined)[];
  /** Sorts indices into winning order. */
  readonly byPriority: (a: number, b: number) => number;
}

/** Slots of the cache of merged candidate lists (a power of two). */
const NAME_SLOTS = 256;

interface NameSlot {
  readonly name: string;
  readonly list: readonly number[];
}

/** The slot of a command name in {@link NameIndex.merged}: a hash of its length and first characters. */
function nameSlot(name: string): number {
  let h = name.length;
  const n = name.length < 8 ? name.length : 8;
  for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  return (h ^ (h >>> 8)) & (NAME_SLOTS - 1);
}
const indices = new WeakMap<readonly ArgumentPattern[], NameIndex>();

function indexOf(patterns: readonly ArgumentPattern[]): NameIndex {
  let index = indices.get(patterns);
  if (index !== undefined) return index;
  const byName = new Map<string, number[]>();
  const others: number[] = [];
  const all: number[] = [];
  const parsed: (CommandPattern | undefined)[] = [];
  const second: (string | undefined)[] = [];
  const byPriority = (a: number, b: number): number => {
    const p = patterns[a]!;
    const q = patterns[b]!;
    return q.specificity - p.specificity || RANK[q.decision] - RANK[p.decision] || a - b;
  };
  patterns.forEach((p, i) => {
    parsed.push(p.error === undefined ? parsedOf(p) : undefined);
    const pw = parsed[i]?.words;
    const next = pw !== undefined && pw[0]?.kind === 'word' ? pw[1] : undefined;
    second.push(next?.kind === 'word' && next.re === undefined ? next.text : undefined);
    if (parsed[i] === undefined) return;
    all.push(i);
    const first = parsed[i]!.words[0];
    if (first === undefined || first.kind !== 'word' || first.re !== undefined) others.push(i);
    else {
      const list = byName.get(first.text);
      if (list) list.push(i);
      else byName.set(first.text, [i]);
    }
  });
  all.sort(byPriority);
  others.sort(byPriority);
  for (const list of byName.values()) list.sort(byPriority);
  const merged = new Array<NameSlot | undefined>(NAME_SLOTS).fill(undefined);
  index = { byName, others, all, parsed, second, merged, byPriority };
  indices.set(patterns, index);
  return index;
}

/** The patterns worth trying for a command name, in winning order. */
function candidates(index: NameIndex, name: ShellWord, slashed: boolean): readonly number[] {
  // An unknown name matches any deny pattern, and a path is also matched by its basename: try everything.
  if (!name.known || slashed) return index.all;
  const value = name.value;
  const slot = nameSlot(value);
  const hit = index.merged[slot];
  if (hit !== undefined && hit.name === value) return hit.list;
  const named = index.byName.get(value);
  const list = named === undefined ? index.others : [...named, ...index.others].sort(index.byPriority);
  index.merged[slot] = { name: value, list };
  return list;
}

/** Whether pattern `i` matches a command's words: an allow must hold for both forms, a deny or ask on either. */
function matches(
  pattern: ArgumentPattern,
  compiled: CommandPattern,
  words: readonly ShellWord[],
  split: readonly ShellWord[],
): boolean {
  const forAllow = pattern.decision === 'allow';
  const asWritten = matchWords(compiled, words, forAllow);
  if (split === words) return asWritten;
  if (forAllow ? !asWritten : asWritten) return asWritten;
  return matchWords(compiled, split, forAllow);
}

/**
 * The winning pattern for one command's words, or -1: the first match in winning order.
 * @param patterns the table's patterns
 * @param words the command's words, the name first
 * @returns the index of the winning pattern
 */
export function pick(patterns: readonly ArgumentPattern[], words: readonly ShellWord[]): number {
  return pickIn(indexOf(patterns), patterns, words, words[0]!.value.includes('/'));
}

/** {@link pick} with the table's index at hand (looked up once per script); `slashed`: the name has a `/`. */
function pickIn(
  index: NameIndex,
  patterns: readonly ArgumentPattern[],
  words: readonly ShellWord[],
  slashed: boolean,
): number {
  const split = splitShortOptions(words);
  const list = candidates(index, words[0]!, slashed);
  const w1 = words.length > 1 ? words[1] : undefined;
  const s1 = split === words ? w1 : split.length > 1 ? split[1] : undefined;
  for (let k = 0; k < list.length; k++) {
    const i = list[k]!;
    const pattern = patterns[i]!;
    const second = index.second[i];
    // A literal second word that neither form's second word can match: the pattern cannot match (see `second`).
    if (second !== undefined) {
      const forAllow = pattern.decision === 'allow';
      if (!couldMatch(second, w1, forAllow) && !couldMatch(second, s1, forAllow)) continue;
    }
    if (matches(pattern, index.parsed[i]!, words, split)) return i;
  }
  return -1;
}

/** Whether a literal pattern word can match command word `w` (not the name), as {@link matchWords} would. */
function couldMatch(literal: string, w: ShellWord | undefined, forAllow: boolean): boolean {
  return w !== undefined && (w.known ? w.value === literal : !forAllow);
}

/**
 * The winning pattern by the definition, every pattern tried in written order: the reference the property tests
 * hold {@link pick} (its index and early exit) to.
 * @returns the index of the winning pattern, or -1
 */
export function pickByScan(patterns: readonly ArgumentPattern[], words: readonly ShellWord[]): number {
  const split = splitShortOptions(words);
  let best = -1;
  patterns.forEach((p, i) => {
    if (p.error !== undefined) return;
    if (best >= 0) {
      const b = patterns[best]!;
      if (p.specificity < b.specificity) return;
      if (p.specificity === b.specificity && RANK[p.decision] <= RANK[b.decision]) return;
    }
    const compiled = parsedOf(p);
    const forAllow = p.decision === 'allow';
    const how = forAllow ? FOR_ALLOW : FOR_DENY;
    const asWritten = matchCommand(compiled, words, how);
    const asSplit = matchCommand(compiled, split, how);
    if (forAllow ? asWritten && asSplit : asWritten || asSplit) best = i;
  });
  return best;
}
