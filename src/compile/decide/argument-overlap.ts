/**
 * Can two argument patterns match the same command, or the same path? If so, which? Lint's `conflicting-patterns`
 * needs a *witness*: a concrete command or path both patterns match, verified with the real matchers, so every
 * finding comes with an example a user can check (a witness is never wrong, only possibly absent).
 *
 * Commands: a breadth-first search over the product of the two patterns' words. A `**` word may match no word or
 * take one word of the other pattern; two plain words need a common value, found by the same search over their
 * characters (`*` inside a word takes any characters). Paths: each pair of brace alternatives goes through
 * `findCommonName`, the tool-name witness search, checked with the path matchers.
 * @module
 */
import { findCommonName } from './glob-overlap.js';
import { expandBraces } from '../language/glob.js';
import { compilePathPattern, type PathForm } from './paths.js';
import { matchCommand, parseCommandPattern, type ShellWord } from '../shell/index.js';

const known = (value: string): ShellWord => ({ text: value, value, known: true });

/** One move of {@link pairSearch}: the next positions in both sequences, and the piece the move contributes. */
type Move<T> = [i: number, j: number, piece: T | undefined];

/**
 * Breadth-first search over the product of two sequences, from both starts to both ends.
 * @param lengths the two sequences' lengths
 * @param moves the moves from positions `i`, `j`
 * @returns the pieces along the shortest path found (moves without a piece left out), or undefined
 */
function pairSearch<T>(
  lengths: [number, number],
  moves: (i: number, j: number) => Move<T>[],
): T[] | undefined {
  const start = '0,0';
  const parent = new Map<string, [string, T | undefined]>([[start, ['', undefined]]]);
  const queue: [number, number][] = [[0, 0]];
  while (queue.length > 0) {
    const [i, j] = queue.shift()!;
    const here = `${i},${j}`;
    if (i === lengths[0] && j === lengths[1]) {
      const pieces: T[] = [];
      for (let k = here; k !== start;) {
        const [from, piece] = parent.get(k)!;
        if (piece !== undefined) pieces.unshift(piece);
        k = from;
      }
      return pieces;
    }
    for (const [ni, nj, piece] of moves(i, j)) {
      const k = `${ni},${nj}`;
      if (parent.has(k)) continue;
      parent.set(k, [here, piece]);
      queue.push([ni, nj]);
    }
  }
  return undefined;
}

/**
 * A value two word patterns (`*` any characters) both match, or undefined.
 * @returns the shortest such value found, `x` standing in for a wildcard where one is free
 */
export function commonWord(a: string, b: string): string | undefined {
  const A = a.replace(/\*+/g, '*');
  const B = b.replace(/\*+/g, '*');
  const chars = pairSearch<string>([A.length, B.length], (i, j) => {
    const next: Move<string>[] = [];
    const ca = A[i];
    const cb = B[j];
    if (ca === '*') next.push([i + 1, j, '']);
    if (cb === '*') next.push([i, j + 1, '']);
    if (ca === '*' && cb !== undefined && cb !== '*') next.push([i, j + 1, cb]);
    if (cb === '*' && ca !== undefined && ca !== '*') next.push([i + 1, j, ca]);
    if (ca !== undefined && ca !== '*' && ca === cb) next.push([i + 1, j + 1, ca]);
    return next;
  });
  return chars?.join('');
}

/**
 * A command both command patterns match, each as its decision reads it (an allow pattern sees only known words).
 * @returns the command's words, or undefined when the search finds none
 */
export function commonCommand(a: string, b: string): string[] | undefined {
  const P = parseCommandPattern(a).words;
  const Q = parseCommandPattern(b).words;
  const sample = (w: (typeof P)[number]) => (w.kind === 'any' ? 'x' : w.text.replace(/\*+/g, 'x'));
  const words = pairSearch<string>([P.length, Q.length], (i, j) => {
    const p = P[i];
    const q = Q[j];
    const next: Move<string>[] = [];
    if (p?.kind === 'any') next.push([i + 1, j, undefined]);
    if (q?.kind === 'any') next.push([i, j + 1, undefined]);
    if (p?.kind === 'any' && q?.kind === 'word') next.push([i, j + 1, sample(q)]);
    if (q?.kind === 'any' && p?.kind === 'word') next.push([i + 1, j, sample(p)]);
    if (p?.kind === 'word' && q?.kind === 'word') {
      const w = commonWord(p.text, q.text);
      if (w !== undefined) next.push([i + 1, j + 1, w === '' && p.text.includes('*') ? 'x' : w]);
    }
    return next;
  });
  return words === undefined ? undefined : verify(a, b, words.length > 0 ? words : ['x']);
}

function verify(a: string, b: string, words: string[]): string[] | undefined {
  const ws = words.map(known);
  // Known words match the same for allow and deny patterns; the name's basename rule only widens deny.
  const ok = (p: string) =>
    matchCommand(p, ws, { forAllow: true }) || matchCommand(p, ws, { forAllow: false });
  return ok(a) && ok(b) ? words : undefined;
}

/** A brace alternative of a path pattern with its own specificity. */
export interface PathAlternative {
  readonly text: string;
  readonly absolute: boolean;
  readonly specificity: number;
  matches(path: string, forAllow: boolean): boolean;
}

/**
 * The brace alternatives of a path pattern, each compiled on its own.
 * @returns the alternatives (none for an invalid pattern)
 */
export function pathAlternatives(pattern: string): PathAlternative[] {
  if (pattern.length === 0) return [];
  return (expandBraces(pattern) ?? []).map((raw) => {
    const compiled = compilePathPattern(raw);
    const absolute = raw.startsWith('/');
    const text = absolute ? raw : raw.replace(/^(\.\/)+/, '');
    const formOf = (path: string): PathForm =>
      absolute ? { absolute: path } : { absolute: `/${path}`, relative: path };
    return {
      text,
      absolute,
      specificity: compiled.specificity,
      // An absolute alternative is matched as a deny would be: allow never sees outside the workspace.
      matches: (path, forAllow) => compiled.match(formOf(path), forAllow && !absolute) >= 0,
    };
  });
}

/**
 * A path two path-pattern alternatives both match (each as its decision reads it), or undefined.
 * @returns the witness
 */
export function commonPath(
  a: PathAlternative,
  aAllow: boolean,
  b: PathAlternative,
  bAllow: boolean,
): string | undefined {
  if (a.absolute !== b.absolute) return undefined;
  return findCommonName(
    { pattern: a.text, match: (n) => a.matches(n, aAllow) },
    { pattern: b.text, match: (n) => b.matches(n, bAllow) },
  );
}

/**
 * Char-level cover of one word pattern by another, both with `*` (any characters): whether `general` matches
 * every value `specific` matches. Proved symbolically: `general`'s `*` may take any run of `specific`'s
 * characters and stars, its literal characters only the same literal characters. Sound, not complete.
 */
function wordCovers(general: string, specific: string, star: string, one?: string): boolean {
  // `one` (a path glob's `?`) takes one character of `specific` that is not a star.
  const G = general;
  const S = specific;
  // reach[j]: general[0..i) can take specific[0..j).
  let reach = new Array<boolean>(S.length + 1).fill(false);
  reach[0] = true;
  for (let i = 0; i < G.length; i++) {
    const g = G[i]!;
    const next = new Array<boolean>(S.length + 1).fill(false);
    for (let j = 0; j <= S.length; j++) {
      if (g === star) next[j] = reach[j]! || (j > 0 && next[j - 1]!);
      else if (j > 0) {
        const s = S[j - 1]!;
        const takes = s !== star && (g === s || (one !== undefined && g === one));
        next[j] = reach[j - 1]! && takes;
      }
    }
    reach = next;
  }
  return reach[S.length]!;
}

/**
 * Whether `general` matches at least every sequence `specific` matches, where `isAny` marks the elements that
 * stand for any run of elements (`**`) and `covers` says whether one plain element covers another.
 */
function sequenceCovers<T>(
  general: readonly T[],
  specific: readonly T[],
  isAny: (x: T) => boolean,
  covers: (g: T, s: T, index: number) => boolean,
  trailingAnyTakesOne = false,
): boolean {
  let reach = new Array<boolean>(specific.length + 1).fill(false);
  reach[0] = true;
  for (const [i, g] of general.entries()) {
    const next = new Array<boolean>(specific.length + 1).fill(false);
    // A final `**` of a path glob matches one segment at least (`a/**` does not match `a`); the last element of
    // `specific` is a segment or such a `**` too, so it must take one element at least.
    const atLeastOne = trailingAnyTakesOne && i === general.length - 1;
    for (let j = 0; j <= specific.length; j++) {
      if (isAny(g)) next[j] = (!atLeastOne && reach[j]!) || (j > 0 && (reach[j - 1]! || next[j - 1]!));
      else if (j > 0) {
        const s = specific[j - 1]!;
        next[j] = reach[j - 1]! && !isAny(s) && covers(g, s, j - 1);
      }
    }
    reach = next;
  }
  return reach[specific.length]!;
}

/**
 * Whether command pattern `general` matches every command `specific` matches, both read as patterns of the same
 * kind (allow patterns see known words only, deny and ask patterns any word). Proved symbolically over the
 * patterns' words: a `**` of `general` takes any run of `specific`'s words, its other words one word each, by
 * `wordCovers`. A command name with a `/` is matched by an allow only as that exact text, so there the word must
 * be the same. Sound, not complete: a pattern covered only by several others together is not found.
 * @returns true when proved
 */
export function commandCovers(general: string, specific: string, forAllow: boolean): boolean {
  const G = patternWords(general);
  const S = patternWords(specific);
  if (G.length === 0 || S.length === 0) return false;
  // Most pairs differ in their leading words (`git log` and `git show`): each leading literal word of `general`
  // takes exactly the word of `specific` at its place, which must be the same.
  for (let i = 0; i < G.length; i++) {
    const g = G[i]!;
    if (g.kind !== 'word' || g.text.includes('*')) break;
    const w = S[i];
    if (w === undefined || w.kind !== 'word' || w.text !== g.text) return false;
  }
  // An allow matches a command name with a `/` only by its exact text, so a word of `specific` that may stand for
  // the name (only `**` before it) and has a `/` must be taken by the very same word.
  const firstWord = S.findIndex((w) => w.kind === 'word');
  const exactName = (index: number) => forAllow && index === firstWord && S[index]!.kind === 'word';
  return sequenceCovers(
    G,
    S,
    (w) => w.kind === 'any',
    (g, s, index) =>
      g.kind === 'word' &&
      s.kind === 'word' &&
      (exactName(index) && s.text.includes('/') ? g.text === s.text : wordCovers(g.text, s.text, '*')),
  );
}

type PatternWords = ReturnType<typeof parseCommandPattern>['words'];
const parsedWords = new Map<string, PatternWords>();

/** A command pattern's words, parsed once per pattern text (bounded: lint asks about every pair of a table). */
function patternWords(source: string): PatternWords {
  let words = parsedWords.get(source);
  if (words === undefined) {
    if (parsedWords.size >= 4096) parsedWords.clear();
    parsedWords.set(source, (words = parseCommandPattern(source).words));
  }
  return words;
}

/** Glob syntax {@link pathCovers} does not reason about: classes, escapes and extglobs. */
const UNMODELLED_PATH_SYNTAX = /[[\]\\()]/;

/**
 * Whether path-pattern alternative `general` matches every path `specific` matches (same absoluteness, both read
 * as patterns of the same kind). Proved symbolically over segments: a `**` segment of `general` takes any run of
 * `specific`'s segments, its other segments one segment each, with `*` taking any characters and `?` one. A
 * pattern with classes, escapes or extglobs is never proved to cover or be covered. Sound, not complete.
 * @returns true when proved
 */
export function pathCovers(general: PathAlternative, specific: PathAlternative): boolean {
  if (general.absolute !== specific.absolute) return false;
  if (UNMODELLED_PATH_SYNTAX.test(general.text) || UNMODELLED_PATH_SYNTAX.test(specific.text)) return false;
  // `**` inside a segment is `*`; a segment that is exactly `**` spans folders.
  const segments = (text: string) => text.split('/').map((s) => (s === '**' ? s : s.replace(/\*+/g, '*')));
  return sequenceCovers(
    segments(general.text),
    segments(specific.text),
    (s) => s === '**',
    (g, s) => wordCovers(g, s, '*', '?'),
    true,
  );
}
