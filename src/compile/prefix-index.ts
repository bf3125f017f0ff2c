/**
 * Values keyed by a literal prefix, for lint's pairwise questions ("which exact names can this glob match?",
 * "which globs can share a name with this one?"). A name a glob matches starts with the glob's literal prefix, and
 * two globs can share a name only when one's literal prefix starts with the other's, so both questions only look
 * at the keys that begin with the same character (and the empty key), instead of every selector.
 *
 * Nothing is sorted when the index is built: lint builds one index per document and asks most documents little
 * (a document without globs asks nothing). A few keys (up to 128) are scanned for the first question; more keys,
 * or a second question, group them by first character (a document of 25 globs asks its exact names 25 times). Only the keys that answer a question are sorted, and `compatibleWith`
 * answers are remembered per prefix (two rules ask the same).
 * @module
 */

/** Up to this many keys, `startingWith` scans them instead of grouping them first. */
const SCAN = 128;

/** An immutable index of values by string key. */
export class PrefixIndex<T> {
  readonly #keys: readonly string[];
  /** The value at a position: given, or made when a question returns it. */
  readonly #value: (position: number) => T;
  /** Positions of the non-empty keys by their first UTF-16 code unit, ascending; built on the first question. */
  #byFirst: Map<number, number[]> | undefined;
  /** Positions of the empty keys. */
  #empty: number[] = [];
  /** Every position, by key then position, for the empty prefix; built when asked. */
  #all: T[] | undefined;
  readonly #compatible = new Map<string, T[]>();
  /** Whether a question was asked: a second one groups the keys instead of scanning them again. */
  #asked = false;

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

  /** Whether this question scans the keys: the first one, when they are few and not grouped yet. */
  #scan(): boolean {
    const first = !this.#asked;
    this.#asked = true;
    return first && this.#keys.length <= SCAN && this.#byFirst === undefined;
  }

  /** The values at `positions`, ordered by key (as `<` compares strings), then by position. */
  #byKey(positions: number[]): T[] {
    const keys = this.#keys;
    if (positions.length > 1) {
      positions.sort((i, j) => {
        const a = keys[i]!;
        const b = keys[j]!;
        return a < b ? -1 : a > b ? 1 : i - j;
      });
    }
    return positions.map(this.#value);
  }

  /** The values whose key starts with `prefix` (the empty prefix: all of them), in key order. */
  startingWith(prefix: string): T[] {
    if (prefix.length === 0) return [...(this.#all ??= this.#byKey(this.#keys.map((_, i) => i)))];
    return this.#byKey(this.#starting(prefix));
  }

  /** The positions of the keys that start with a non-empty `prefix`, ascending. */
  #starting(prefix: string): number[] {
    const found: number[] = [];
    const keys = this.#keys;
    const first = prefix.charCodeAt(0);
    if (this.#scan()) {
      // A document's few keys, asked once: one pass costs less than grouping them.
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (key.charCodeAt(0) === first && key.startsWith(prefix)) found.push(i);
      }
      return found;
    }
    const candidates = this.#groups().get(first);
    if (candidates === undefined) return found;
    for (const i of candidates) if (keys[i]!.startsWith(prefix)) found.push(i);
    return found;
  }

  /** The values whose key is a proper prefix of `text` (shorter than it), shortest key first. */
  properPrefixesOf(text: string): T[] {
    return this.#proper(text).map(this.#value);
  }

  /** The positions of the keys that are proper prefixes of `text`, by length, then position. */
  #proper(text: string): number[] {
    if (text.length === 0) return [];
    const keys = this.#keys;
    const found: number[] = [];
    let sorted = true;
    const visit = (i: number) => {
      const key = keys[i]!;
      if (key.length >= text.length || !text.startsWith(key)) return;
      if (found.length > 0 && keys[found[found.length - 1]!]!.length > key.length) sorted = false;
      found.push(i);
    };
    if (this.#scan()) {
      for (let i = 0; i < keys.length; i++) visit(i);
    } else {
      const group = this.#groups().get(text.charCodeAt(0));
      for (const i of this.#empty) visit(i);
      for (const i of group ?? []) visit(i);
    }
    // Proper prefixes of one text differ in length only: by length, then by position.
    if (!sorted) found.sort((i, j) => keys[i]!.length - keys[j]!.length || i - j);
    return found;
  }

  /**
   * The values whose key starts with `prefix` or is a proper prefix of it: those that can share a name with it
   * (the proper prefixes first). Remembered per prefix: several rules ask the same (do not modify the result).
   */
  compatibleWith(prefix: string): readonly T[] {
    let known = this.#compatible.get(prefix);
    if (known === undefined) {
      const shorter = this.#proper(prefix);
      const longer = prefix.length === 0 ? this.#keys.map((_, i) => i) : this.#starting(prefix);
      // Concatenated, not pushed onto: the remembered arrays stay their own size.
      known =
        shorter.length === 0 ? this.#byKey(longer) : shorter.map(this.#value).concat(this.#byKey(longer));
      this.#compatible.set(prefix, known);
    }
    return known;
  }
}
