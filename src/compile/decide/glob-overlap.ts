/**
 * Can two tool-name globs match the same name? If so, which name?
 *
 * Lint needs this for `conflicting-globs` (two equal-specificity globs that disagree) and `no-op-rule` (probing
 * the names a glob shares with other selectors). The answer is a *witness*: a concrete name that both patterns
 * match, verified with the real matchers, so a finding always comes with an example a user can check.
 *
 * Method: each pattern (one brace alternative) is tokenised by `glob-syntax.ts` into literals, `?`, `[...]`
 * classes and `*` runs, and a breadth-first search walks the product of the two token sequences, choosing for
 * each step a character both tokens accept. Characters are drawn from printable ASCII plus every character the patterns mention, so
 * any overlap that needs a character outside that set is missed (a witness is never wrong, only possibly
 * absent). Extglobs, negation and globstars are not tool-name syntax (see `glob.ts`: they are literals). A class
 * the tokenizer cannot sample falls back to testing each pattern's example names against the other matcher.
 * The search is bounded by the product of the pattern lengths (4 KiB each at most by `glob.ts`).
 * @module
 */
import { sampleChar, tokenizeGlob } from '../language/glob-syntax.js';

/** A selector alternative as the glob parser produces it: the pattern and its matcher. */
export interface MatchablePattern {
  pattern: string;
  match(name: string): boolean;
}

const MAX_STATES = 250_000;

/** A pattern element: one character (a literal, `?` or a class) or a `*` run. `literal` is set for plain characters. */
type Token =
  { kind: 'char'; test: (c: string) => boolean; sample: string; literal?: string } | { kind: 'star' };

// Letters first, so witnesses read like tool names (`mcp__x`), then the rest of printable ASCII.
const PRINTABLE = [
  ...'xabcdefghijklmnopqrstuvwyz0123456789_-ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
].filter((c, i, all) => all.indexOf(c) === i);
const PRINTABLE_SET = new Set(PRINTABLE);

/**
 * Returns a name both patterns match, or undefined when the search finds none.
 * @param a one pattern and its matcher
 * @param b the other
 * @returns a witness name, verified with both matchers
 */
export function findCommonName(a: MatchablePattern, b: MatchablePattern): string | undefined {
  const ta = tokenize(a.pattern);
  const tb = tokenize(b.pattern);
  // Hostile lengths would make the product search slow: sample instead.
  if (ta === undefined || tb === undefined || ta.length * tb.length > MAX_STATES) {
    return [...exampleNames(a.pattern), ...exampleNames(b.pattern)].find((n) => a.match(n) && b.match(n));
  }
  // Most pairs differ in a literal prefix or suffix: no search needed.
  if (!affixesAgree(ta, tb)) return undefined;
  const extra = [...a.pattern, ...b.pattern].filter((c) => !PRINTABLE_SET.has(c));
  const witness = search(ta, tb, extra.length === 0 ? PRINTABLE : [...PRINTABLE, ...new Set(extra)]);
  return witness !== undefined && a.match(witness) && b.match(witness) ? witness : undefined;
}

/** False when the patterns' leading or trailing literal characters differ: no name can match both. */
function affixesAgree(ta: readonly Token[], tb: readonly Token[]): boolean {
  const agree = (x: readonly Token[], y: readonly Token[]) => {
    for (let i = 0; i < x.length && i < y.length; i++) {
      const p = x[i]!;
      const q = y[i]!;
      if (p.kind !== 'char' || q.kind !== 'char' || p.literal === undefined || q.literal === undefined)
        return true;
      if (p.literal !== q.literal) return false;
    }
    return true;
  };
  return agree(ta, tb) && agree([...ta].reverse(), [...tb].reverse());
}

/**
 * A few names a pattern matches (its literal skeleton with `*` as nothing and as `x`), for probing.
 * @param pattern one brace alternative
 * @returns candidate names; callers verify them with the matcher
 */
export function exampleNames(pattern: string): string[] {
  const tokens = tokenize(pattern);
  if (tokens === undefined) return [pattern.replace(/[*?]/g, '')];
  const skeleton = (star: string) => tokens.map((t) => (t.kind === 'star' ? star : t.sample)).join('');
  return [...new Set([skeleton(''), skeleton('x')])];
}

/**
 * Breadth-first search over (position in a, position in b, whether a character was consumed); returns the first
 * accepted non-empty string (tool names are never empty, and minimatch matches no empty name).
 */
function search(ta: Token[], tb: Token[], alphabet: string[]): string | undefined {
  const width = tb.length + 1;
  const seen = new Map<number, { from: number; char: string }>();
  const queue: number[] = [0];
  seen.set(0, { from: -1, char: '' });
  const visit = (i: number, j: number, nonEmpty: boolean, from: number, char: string) => {
    const state = (i * width + j) * 2 + (nonEmpty ? 1 : 0);
    if (seen.has(state)) return;
    seen.set(state, { from, char });
    queue.push(state);
  };
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    const nonEmpty = state % 2 === 1;
    const i = Math.floor(state / 2 / width);
    const j = Math.floor(state / 2) % width;
    if (nonEmpty && i === ta.length && j === tb.length) return rebuild(seen, state);
    const x = ta[i];
    const y = tb[j];
    // A star may match nothing: step past it without consuming a character.
    if (x?.kind === 'star') visit(i + 1, j, nonEmpty, state, '');
    if (y?.kind === 'star') visit(i, j + 1, nonEmpty, state, '');
    if (x === undefined || y === undefined) continue;
    const c = commonChar(x, y, alphabet);
    if (c === undefined) continue;
    visit(x.kind === 'star' ? i : i + 1, y.kind === 'star' ? j : j + 1, true, state, c);
  }
  return undefined;
}

/** A character both tokens accept; a literal on either side is the only candidate, so most steps are O(1). */
function commonChar(x: Token, y: Token, alphabet: string[]): string | undefined {
  const only = (x.kind === 'char' && x.literal) || (y.kind === 'char' && y.literal);
  if (only) return accepts(x, only) && accepts(y, only) ? only : undefined;
  return alphabet.find((ch) => accepts(x, ch) && accepts(y, ch));
}

function accepts(token: Token, c: string): boolean {
  return token.kind === 'star' || token.test(c);
}

function rebuild(seen: Map<number, { from: number; char: string }>, end: number): string {
  const chars: string[] = [];
  for (let s = end; s !== 0;) {
    const step = seen.get(s)!;
    chars.push(step.char);
    s = step.from;
  }
  return chars.reverse().join('');
}

/** Tokenises one brace-free pattern; undefined when a class has no sample character (or matches nothing). */
function tokenize(pattern: string): Token[] | undefined {
  const tokens: Token[] = [];
  for (const t of tokenizeGlob(pattern)) {
    if (t.kind === 'literal') tokens.push(literal(t.text));
    else if (t.kind === 'star') tokens.push({ kind: 'star' });
    else if (t.kind === 'any') tokens.push({ kind: 'char', test: () => true, sample: 'x' });
    else {
      const sample = sampleChar(t, pattern);
      if (sample === undefined) return undefined;
      tokens.push({ kind: 'char', test: t.test, sample });
    }
  }
  return tokens;
}

function literal(c: string): Token {
  return { kind: 'char', test: (x) => x === c, sample: c, literal: c };
}
