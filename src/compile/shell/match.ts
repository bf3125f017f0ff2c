/**
 * Command patterns: words, where `*` inside a word matches any characters and a word that is exactly `**`
 * matches any number of words (none included). A pattern without `**` matches only commands of its exact word
 * count. Matching is a pure function over the analyser's words, in time bounded by (pattern words × command
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
      /** For a word with a `*`: the literal text between its `*`s (at least two parts, maybe empty). */
      readonly parts?: readonly string[];
    };

/** A parsed command pattern. */
export interface CommandPattern {
  readonly source: string;
  readonly words: readonly PatternWord[];
  /** Count of literal characters: the more, the more specific. */
  readonly specificity: number;
}

/** How to match. */
export interface MatchOptions {
  /** True for an allow pattern: unknown words never match. False for deny and ask: unknown words match anything. */
  readonly forAllow: boolean;
}

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
      if (!text.includes('*')) return { kind: 'word', text };
      return { kind: 'word', text, parts: text.split(/\*+/) };
    });
  return { source, words, specificity: commandPatternSpecificity(words) };
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

/**
 * Whether a literal pattern word matches a value: equal, or for a word with `*`s, the value starts with the first
 * part, ends with the last, and holds the others in order between them (leftmost first is enough when `*` is the
 * only wildcard). Linear in the value, and no expression to build: a hook process compiles every pattern of the
 * plan before each agent tool call.
 */
export function wordMatches(p: PatternWord & { kind: 'word' }, value: string): boolean {
  const parts = p.parts;
  if (parts === undefined) return p.text === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const end = value.length - last.length;
  if (end < first.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = value.indexOf(parts[i]!, at);
    if (found === -1 || found + parts[i]!.length > end) return false;
    at = found + parts[i]!.length;
  }
  return true;
}

function nameMatches(p: PatternWord, word: ShellWord, forAllow: boolean): boolean {
  if (p.kind === 'any') return !forAllow || word.known;
  if (!word.known) return !forAllow;
  const value = word.value;
  if (!value.includes('/')) return wordMatches(p, value);
  // A path is allowed only by its exact self; deny and ask also see its basename.
  if (forAllow) return p.text === value;
  return wordMatches(p, value) || wordMatches(p, value.slice(value.lastIndexOf('/') + 1));
}

const ANY: PatternWord = { kind: 'any' };

/** Whether pattern word `pw` matches command word `w` at position `j` (the name when 0). */
function wordAt(pw: PatternWord, w: ShellWord, j: number, forAllow: boolean): boolean {
  if (j === 0) return nameMatches(pw, w, forAllow);
  if (pw.kind === 'any') return !forAllow || w.known;
  if (!w.known) return !forAllow;
  return wordMatches(pw, w.value);
}

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
  // Every pattern word but `**` takes exactly one command word, so when the rest does not fit, only the last `**`
  // seen needs to take one more word and the rest is retried: at most (pattern words × command words) steps.
  let i = 0;
  let j = 0;
  let star = -1;
  let starEnd = 0;
  while (j < W) {
    const pw = pws[i];
    if (pw !== undefined) {
      if (pw.kind === 'any') {
        star = i++;
        starEnd = j;
        continue;
      }
      if (wordAt(pw, words[j]!, j, forAllow)) {
        i++;
        j++;
        continue;
      }
    }
    // For allow, `**` takes no unknown word either.
    if (star < 0 || !wordAt(ANY, words[starEnd]!, starEnd, forAllow)) return false;
    j = ++starEnd;
    i = star + 1;
  }
  while (i < P && pws[i]!.kind === 'any') i++;
  return i === P;
}

/**
 * Whether a deny or ask pattern can match some command of the program `name` with one or more words after it: its
 * first word is `**`, or it matches the name and has more words. This is how a pattern is assumed to match a
 * command whose words past an unknown global option cannot be placed (see `global-options.ts`).
 * @param p the parsed pattern
 * @param name the command's first word
 * @returns whether the pattern is one of that program's
 */
export function matchesProgram(p: CommandPattern, name: ShellWord): boolean {
  const first = p.words[0];
  if (first === undefined) return false;
  if (first.kind === 'any') return true;
  return p.words.length > 1 && nameMatches(first, name, false);
}
