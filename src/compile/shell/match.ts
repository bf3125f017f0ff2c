/**
 * Command patterns: words, where `*` inside a word matches any characters and a word that is exactly `**`
 * matches any number of words (none included). A pattern without `**` matches only commands of its exact word
 * count. Matching is a pure function over the analyser's words, in time linear in (pattern words × command
 * words).
 *
 * Unknown words (expansions, globs, `~`, what a wrapper fills in) decide which way matching errs: for an allow
 * pattern an unknown word never matches, not even `**`; for a deny or ask pattern it matches any one pattern word
 * and is absorbed by `**`. A name with a `/` (`/bin/rm`) is matched by its basename or its full path for deny and
 * ask, and by an allow pattern only when the pattern's first word is that exact path.
 */
import type { ShellWord, SimpleCommand } from './types.js';

/** One word of a pattern. */
type PatternWord =
  | { readonly kind: 'any' }
  | {
      readonly kind: 'word';
      readonly text: string;
      /** For a word with a `*`: what it matches. */
      readonly re?: RegExp;
      /** For a word whose only `*`s end it: the text before them, matched as a prefix (the same as `re`, faster). */
      readonly prefix?: string;
    };

/** A parsed command pattern. */
export interface CommandPattern {
  readonly source: string;
  readonly words: readonly PatternWord[];
  /** Count of literal characters: the more, the more specific. */
  readonly specificity: number;
  /**
   * How many words are matched one for one before any `**`: all of them when the pattern has no `**`, all but the
   * last when its only `**` is the last word; -1 for any other shape (matched by the general DP).
   */
  readonly fixed?: number;
}

/** How to match. */
export interface MatchOptions {
  /** True for an allow pattern: unknown words never match. False for deny and ask: unknown words match anything. */
  readonly forAllow: boolean;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Parses a pattern: words separated by runs of spaces or tabs.
 * @param source the pattern as written
 * @returns the parsed pattern
 */
export function parseCommandPattern(source: string): CommandPattern {
  const words = source
    .split(/[ \t]+/)
    .filter((w) => w !== '')
    .map((text): PatternWord => {
      if (text === '**') return { kind: 'any' };
      // Every word with the same keys in the same order, so the matcher's reads of them stay monomorphic.
      if (!text.includes('*')) return { kind: 'word', text, re: undefined, prefix: undefined };
      const pieces = text.split(/\*+/);
      const re = new RegExp(`^${pieces.map(escape).join('.*')}$`, 's');
      const prefix = pieces.length === 2 && pieces[1] === '' ? pieces[0]! : undefined;
      return { kind: 'word', text, re, prefix };
    });
  return { source, words, specificity: commandPatternSpecificity(words), fixed: fixedPrefix(words) };
}

/** See {@link CommandPattern.fixed}. */
function fixedPrefix(pws: readonly PatternWord[]): number {
  let anyAt = -1;
  let anyCount = 0;
  for (let i = 0; i < pws.length; i++) {
    if (pws[i]!.kind === 'any') {
      anyAt = i;
      anyCount++;
    }
  }
  if (anyCount === 0) return pws.length;
  return anyCount === 1 && anyAt === pws.length - 1 ? pws.length - 1 : -1;
}

/**
 * The specificity of a pattern: its count of literal (non-`*`) characters.
 * @param pattern a pattern or its words
 * @returns the count
 */
export function commandPatternSpecificity(pattern: CommandPattern | readonly PatternWord[]): number {
  const words = 'words' in pattern ? pattern.words : pattern;
  let n = 0;
  for (const w of words) if (w.kind === 'word') n += w.text.replace(/\*/g, '').length;
  return n;
}

function wordMatches(p: PatternWord & { kind: 'word' }, value: string): boolean {
  if (p.prefix !== undefined) return value.startsWith(p.prefix);
  return p.re ? p.re.test(value) : p.text === value;
}

function nameMatches(p: PatternWord, word: ShellWord, forAllow: boolean): boolean {
  if (p.kind === 'any') return !forAllow || word.known;
  if (!word.known) return !forAllow;
  const value = word.value;
  // The usual case (candidates are picked by name): the literal name itself, a match for allow, deny and ask alike.
  if (p.re === undefined && p.text === value) return true;
  // `indexOf` first: most names have no `/`, and `lastIndexOf` is a slow runtime call in V8.
  if (value.indexOf('/') < 0) return wordMatches(p, value);
  const slash = value.lastIndexOf('/');
  // A path is allowed only by its exact self; deny and ask also see its basename.
  if (forAllow) return p.text === value;
  return wordMatches(p, value) || wordMatches(p, value.slice(slash + 1));
}

/** Whether pattern word `pw` matches command word `w` at position `j` (the name when 0). */
function wordAt(pw: PatternWord, w: ShellWord, j: number, forAllow: boolean): boolean {
  if (j === 0) return nameMatches(pw, w, forAllow);
  if (pw.kind === 'any') return !forAllow || w.known;
  if (!w.known) return !forAllow;
  return wordMatches(pw, w.value);
}

// The DP's two rows, reused: matching runs to completion without calling out, so one pair serves every call.
let reachRow = new Uint8Array(64);
let nextRow = new Uint8Array(64);

/**
 * Whether a pattern matches a command.
 * @param pattern the pattern (parsed, or as written)
 * @param command the command, or its words with the name first
 * @param options `forAllow` picks how unknown words match
 * @returns whether the pattern matches
 */
export function matchCommand(
  pattern: CommandPattern | string,
  command: SimpleCommand | readonly ShellWord[],
  options: MatchOptions,
): boolean {
  const p = typeof pattern === 'string' ? parseCommandPattern(pattern) : pattern;
  const words = Array.isArray(command) ? (command as readonly ShellWord[]) : (command as SimpleCommand).words;
  return matchWords(p, words, options.forAllow);
}

/**
 * {@link matchCommand} on a parsed pattern and a command's words.
 * @param p the parsed pattern
 * @param words the command's words, the name first
 * @param forAllow see {@link MatchOptions}
 * @returns whether the pattern matches
 */
export function matchWords(p: CommandPattern, words: readonly ShellWord[], forAllow: boolean): boolean {
  const pws = p.words;
  const P = pws.length;
  const W = words.length;
  if (P === 0 || W === 0) return P === 0 && W === 0;
  // The common shapes without the DP: no `**` (word for word), and one `**` at the end (a prefix, then any rest).
  const fixed = p.fixed ?? fixedPrefix(pws);
  if (fixed >= 0) {
    if (fixed === P ? W !== P : W < fixed) return false;
    for (let j = 0; j < fixed; j++) if (!wordAt(pws[j]!, words[j]!, j, forAllow)) return false;
    if (fixed === P) return true;
    const any = pws[P - 1]!;
    for (let j = fixed; j < W; j++) if (!wordAt(any, words[j]!, j, forAllow)) return false;
    return true;
  }
  // reach[j]: pattern words 0..i-1 can consume command words 0..j-1.
  if (reachRow.length < W + 1) {
    reachRow = new Uint8Array(2 * (W + 1));
    nextRow = new Uint8Array(2 * (W + 1));
  }
  let reach = reachRow;
  let next = nextRow;
  reach.fill(0, 0, W + 1);
  reach[0] = 1;
  for (let i = 0; i < P; i++) {
    const pw = pws[i]!;
    const any = pw.kind === 'any';
    next[0] = any ? reach[0]! : 0;
    for (let j = 1; j <= W; j++) {
      // `**` consumes none (reach[j]) or one more word after a reachable prefix.
      if (any) next[j] = reach[j]! || (next[j - 1]! && wordAt(pw, words[j - 1]!, j - 1, forAllow)) ? 1 : 0;
      else next[j] = reach[j - 1]! && wordAt(pw, words[j - 1]!, j - 1, forAllow) ? 1 : 0;
    }
    const t = reach;
    reach = next;
    next = t;
  }
  return reach[W] === 1;
}
