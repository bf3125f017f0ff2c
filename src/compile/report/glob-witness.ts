/**
 * A tool name that no selector matches: the name `matrix`, `diff` and the start notices ask about for "a tool no
 * rule names". A fixed probe name is not enough, because a document can cover it (`"\u2063*": deny` beside
 * `default: allow`) and so hide a widened default from every check.
 *
 * The search runs the globs as automata over the tokens of `glob-syntax.ts`, breadth first (shortest names
 * first), over an alphabet of the patterns' own characters, one member of each class and a few others. A prefix
 * that some glob accepts whatever follows is not extended, and a set of automaton states already seen is not
 * visited again, so the search stays small; it gives up after a fixed budget. Every name it returns is checked
 * against the real matchers, so a name it returns is matched by none of them.
 * @module
 */
import { sampleChar, tokenizeGlob, type GlobToken } from '../language/glob-syntax.js';

/** A glob as the search needs it: its pattern (brace-free) and the matcher the compiler uses. */
export interface WitnessGlob {
  pattern: string;
  match(name: string): boolean;
}

/** Automaton states visited at most; beyond it the search gives up. */
const BUDGET = 20_000;
/** Longest name tried. */
const MAX_LENGTH = 64;
/** Characters tried besides the patterns' own (no `/`: the matcher treats it apart). */
const EXTRA = ['\u2063', 'x', 'q', '0', '_', '-', '.', '~', 'é', '\ue000'];

/**
 * @param globs every glob of every document compared
 * @param literals every plain name the documents name (a witness must differ from each)
 * @returns a name no glob matches and no literal equals, or undefined when the search finds none
 */
export function unmatchedName(
  globs: readonly WitnessGlob[],
  literals: ReadonlySet<string>,
): string | undefined {
  const programs = globs.map((g) => tokenizeGlob(g.pattern));
  const alphabet = alphabetOf(globs, programs);
  const start = programs.map((tokens) => closure(tokens, [0]));
  let frontier: { name: string; states: number[][] }[] = [{ name: '', states: start }];
  const seen = new Set<string>([key(start)]);
  for (let length = 1; length <= MAX_LENGTH && frontier.length > 0; length++) {
    const next: typeof frontier = [];
    for (const { name, states } of frontier) {
      for (const c of alphabet) {
        const moved = programs.map((tokens, i) => step(tokens, states[i]!, c));
        const candidate = name + c;
        if (moved.some((s, i) => acceptsAll(programs[i]!, s))) continue;
        const accepted = moved.some((s, i) => s.includes(programs[i]!.length));
        if (!accepted && !literals.has(candidate) && !globs.some((g) => g.match(candidate))) return candidate;
        const k = key(moved);
        if (seen.has(k)) continue;
        if (seen.size >= BUDGET) return undefined;
        seen.add(k);
        next.push({ name: candidate, states: moved });
      }
    }
    frontier = next;
  }
  return undefined;
}

function alphabetOf(globs: readonly WitnessGlob[], programs: readonly GlobToken[][]): string[] {
  const chars = new Set<string>(EXTRA);
  programs.forEach((tokens, i) => {
    for (const t of tokens) {
      if (t.kind === 'literal') chars.add(t.text);
      else if (t.kind === 'class') {
        const c = sampleChar(t, globs[i]!.pattern);
        if (c !== undefined) chars.add(c);
      }
    }
  });
  chars.delete('/');
  return [...chars];
}

/** The states reachable from `states` without consuming a character (a `*` may match nothing). */
function closure(tokens: readonly GlobToken[], states: readonly number[]): number[] {
  const out = new Set<number>();
  for (let s of states) {
    out.add(s);
    while (s < tokens.length && tokens[s]!.kind === 'star') out.add(++s);
  }
  return [...out].sort((a, b) => a - b);
}

function step(tokens: readonly GlobToken[], states: readonly number[], c: string): number[] {
  const next: number[] = [];
  for (const s of states) {
    const t = tokens[s];
    if (t === undefined) continue;
    if (t.kind === 'star') next.push(s);
    else if (t.kind === 'any' || (t.kind === 'literal' && t.text === c) || (t.kind === 'class' && t.test(c)))
      next.push(s + 1);
  }
  return closure(tokens, next);
}

/** Whether the glob matches every extension of the prefix: a state from which only `*` remains. */
function acceptsAll(tokens: readonly GlobToken[], states: readonly number[]): boolean {
  return states.some((s) => s < tokens.length && tokens.slice(s).every((t) => t.kind === 'star'));
}

function key(states: readonly number[][]): string {
  return states.map((s) => s.join(',')).join('|');
}
