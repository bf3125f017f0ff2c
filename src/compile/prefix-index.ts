/**
 * Values keyed by a literal prefix, for lint's pairwise questions ("which exact names can this glob match?",
 * "which globs can share a name with this one?"). A name a glob matches starts with the glob's literal prefix, and
 * two globs can share a name only when one's literal prefix starts with the other's, so both questions only look
 * at the keys that start with the prefix or that the prefix starts with, instead of every selector.
 *
 * Nothing is sorted when the index is built: lint builds one index per document and asks most documents little
 * (a document without globs asks nothing). The first question scans the keys when they are few (up to 128): one
 * pass costs less than anything built, and many indexes are asked once. Otherwise, and from the second question
 * on, the keys are grouped by first character (most prefixes then find no group: `mcp__` among names that start
 * `tool_`), and a group that a question reaches is sorted once (as `<` compares strings, equal keys by position):
 * the keys that start with a prefix are one run of it, found by binary search, and the keys that are proper
 * prefixes of a text a chain of "longest shorter key that starts it" links (a document of 25 globs asks its 25
 * glob prefixes, all starting `mcp__`, 25 times). `compatibleWith` answers are remembered per prefix (two rules
 * ask the same).
 * @module
 */

/** Up to this many keys, a first question scans them instead of sorting them. */
const SCAN = 128;

/** The keys in order, each distinct key once with its positions (ascending), and its longest proper prefix. */
interface Sorted {
  /** Distinct keys, ascending (UTF-16 code units). */
  keys: string[];
  /** Per distinct key, its positions in the given keys, ascending. */
  positions: number[][];
  /** Per distinct key, the index of the longest other key that starts it, or -1. */
  parent: number[];
}

/** An immutable index of values by string key. */
export class PrefixIndex<T> {
  readonly #keys: readonly string[];
  /** The value at a position: given, or made when a question returns it. */
  readonly #value: (position: number) => T;
  /** Positions of the non-empty keys by first UTF-16 code unit, and of the empty keys; built when not scanning. */
  #byFirst: Map<number, number[]> | undefined;
  #empty: number[] = [];
  /** Groups sorted when a question reaches them, by first code unit; every key, for the empty prefix. */
  readonly #sorted = new Map<number, Sorted>();
  #all: Sorted | undefined;
  readonly #compatible = new Map<string, T[]>();
  /** Whether a question was asked: a second one sorts the keys instead of scanning them again. */
  #asked = false;
  /** Whether some key starts another (see `hasCompatiblePair`), once asked. */
  #compatiblePair: boolean | undefined;

  /**
   * @param keys one key per value
   * @param values the values, or a function that makes the value at a position when a question returns it (most
   *   values of a big lint are never returned); values with equal keys keep their given order (neither array is
   *   modified)
   */
  constructor(keys: readonly string[], values: readonly T[] | ((position: number) => T)) {
    this.#keys = keys;
    this.#value = typeof values === 'function' ? values : (i) => values[i]!;
  }

  /** Whether this question scans the keys: the first one, when they are few and not sorted yet. */
  #scan(): boolean {
    const first = !this.#asked;
    this.#asked = true;
    return first && this.#keys.length <= SCAN && this.#byFirst === undefined;
  }

  #groups(): Map<number, number[]> {
    if (this.#byFirst !== undefined) return this.#byFirst;
    const byFirst = new Map<number, number[]>();
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (key.length === 0) {
        this.#empty.push(i);
        continue;
      }
      const first = key.charCodeAt(0);
      const list = byFirst.get(first);
      if (list) list.push(i);
      else byFirst.set(first, [i]);
    }
    return (this.#byFirst = byFirst);
  }

  /** The sorted group of the non-empty keys that start with the code unit `first`, if there are any. */
  #group(first: number): Sorted | undefined {
    let sorted = this.#sorted.get(first);
    if (sorted === undefined) {
      const positions = this.#groups().get(first);
      if (positions === undefined) return undefined;
      this.#sorted.set(first, (sorted = this.#sort(positions)));
    }
    return sorted;
  }

  /** `order` (positions, modified) sorted by key, then position, as distinct keys with their positions and parents. */
  #sort(order: number[]): Sorted {
    const given = this.#keys;
    order.sort((i, j) => {
      const a = given[i]!;
      const b = given[j]!;
      return a < b ? -1 : a > b ? 1 : i - j;
    });
    const keys: string[] = [];
    const positions: number[][] = [];
    for (const i of order) {
      const key = given[i]!;
      if (keys.length > 0 && keys[keys.length - 1] === key) positions[positions.length - 1]!.push(i);
      else (keys.push(key), positions.push([i]));
    }
    // Sorted, a key comes after the keys that start it, and every key between it and its longest proper prefix
    // starts with that prefix: a stack of the current chain gives each key its parent.
    const chain: number[] = [];
    const parent = keys.map((key, k) => {
      while (chain.length > 0 && !key.startsWith(keys[chain[chain.length - 1]!]!)) chain.pop();
      const p = chain.length > 0 ? chain[chain.length - 1]! : -1;
      chain.push(k);
      return p;
    });
    return { keys, positions, parent };
  }

  /** The values whose key starts with `prefix` (the empty prefix: all of them), in key order. */
  startingWith(prefix: string): T[] {
    return this.#starting(prefix).map(this.#value);
  }

  /** The positions of the keys that start with `prefix`, by key, then position. */
  #starting(prefix: string): number[] {
    const found: number[] = [];
    if (this.#scan()) {
      // A document's few keys, asked once: one pass, then only the keys found are sorted.
      const keys = this.#keys;
      for (let i = 0; i < keys.length; i++) if (keys[i]!.startsWith(prefix)) found.push(i);
      if (found.length > 1) {
        found.sort((i, j) => {
          const a = keys[i]!;
          const b = keys[j]!;
          return a < b ? -1 : a > b ? 1 : i - j;
        });
      }
      return found;
    }
    const sorted =
      prefix.length === 0
        ? (this.#all ??= this.#sort(this.#keys.map((_, i) => i)))
        : this.#group(prefix.charCodeAt(0));
    if (sorted === undefined) return found;
    const { keys, positions } = sorted;
    for (let k = lowerBound(keys, prefix); k < keys.length && keys[k]!.startsWith(prefix); k++) {
      for (const i of positions[k]!) found.push(i);
    }
    return found;
  }

  /** The values whose key is a proper prefix of `text` (shorter than it), shortest key first. */
  properPrefixesOf(text: string): T[] {
    return this.#proper(text).map(this.#value);
  }

  /** The positions of the keys that are proper prefixes of `text`, by length, then position. */
  #proper(text: string): number[] {
    if (text.length === 0) return [];
    const found: number[] = [];
    if (this.#scan()) {
      const keys = this.#keys;
      let sorted = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (key.length >= text.length || !text.startsWith(key)) continue;
        if (found.length > 0 && keys[found[found.length - 1]!]!.length > key.length) sorted = false;
        found.push(i);
      }
      // Proper prefixes of one text differ in length only: by length, then by position.
      if (!sorted) found.sort((i, j) => keys[i]!.length - keys[j]!.length || i - j);
      return found;
    }
    // The empty keys first (the shortest), then the others that start `text`: all in the group of its first unit.
    this.#groups();
    for (const i of this.#empty) found.push(i);
    const sorted = this.#group(text.charCodeAt(0));
    if (sorted === undefined) return found;
    const { keys, positions, parent } = sorted;
    // The last key before `text` in order: the longest key that starts `text` is on its parent chain (every key
    // between the two starts with it).
    let k = lowerBound(keys, text) - 1;
    while (k >= 0 && !text.startsWith(keys[k]!)) k = parent[k]!;
    // The chain from there is every key that starts `text`, longest first.
    const chain: number[] = [];
    for (; k >= 0; k = parent[k]!) chain.push(k);
    for (let c = chain.length - 1; c >= 0; c--) for (const i of positions[chain[c]!]!) found.push(i);
    return found;
  }

  /**
   * Whether some key starts another key (an equal key included). When none does, the only key compatible with a
   * key is itself: lint skips its pairwise questions (a document of distinct `mcp__server__*` globs asks none).
   */
  hasCompatiblePair(): boolean {
    if (this.#compatiblePair === undefined) {
      // Sorted (by code units, as `<` compares), a key comes right before the keys that start with it.
      const sorted = [...this.#keys].sort();
      let found = false;
      for (let i = 1; i < sorted.length && !found; i++) found = sorted[i]!.startsWith(sorted[i - 1]!);
      this.#compatiblePair = found;
    }
    return this.#compatiblePair;
  }

  /**
   * The values whose key starts with `prefix` or is a proper prefix of it: those that can share a name with it
   * (the proper prefixes first). Remembered per prefix: several rules ask the same (do not modify the result).
   */
  compatibleWith(prefix: string): readonly T[] {
    let known = this.#compatible.get(prefix);
    if (known === undefined) {
      const positions = this.#proper(prefix);
      for (const i of this.#starting(prefix)) positions.push(i);
      // Made once, at its size: the remembered arrays stay their own size.
      known = positions.map(this.#value);
      this.#compatible.set(prefix, known);
    }
    return known;
  }
}

/** The first index whose key is at least `x` (`keys` ascending). */
function lowerBound(keys: readonly string[], x: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
