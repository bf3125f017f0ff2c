/**
 * Values keyed by a literal prefix, for lint's pairwise questions ("which exact names can this glob match?",
 * "which globs can share a name with this one?"). A name a glob matches starts with the glob's literal prefix, and
 * two globs can share a name only when one's literal prefix starts with the other's, so both questions become a
 * range of a sorted array plus a few map lookups instead of a scan of every selector.
 * @module
 */

/** An immutable index of values by string key, built once. */
export class PrefixIndex<T> {
  readonly #keys: string[];
  readonly #values: T[];
  readonly #byKey = new Map<string, T[]>();
  readonly #lengths: number[];

  /** @param entries `[key, value]` pairs; values with equal keys keep their given order */
  constructor(entries: readonly (readonly [string, T])[]) {
    const sorted = entries
      .map((e, i) => [e, i] as const)
      .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j));
    this.#keys = sorted.map(([e]) => e[0]);
    this.#values = sorted.map(([e]) => e[1]);
    for (const [[key, value]] of sorted) {
      const list = this.#byKey.get(key);
      if (list) list.push(value);
      else this.#byKey.set(key, [value]);
    }
    this.#lengths = [...new Set(this.#keys.map((k) => k.length))].sort((a, b) => a - b);
  }

  /** The values whose key starts with `prefix` (the empty prefix: all of them), in key order. */
  startingWith(prefix: string): T[] {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: T[] = [];
    for (let i = lo; i < this.#keys.length && this.#keys[i]!.startsWith(prefix); i++)
      out.push(this.#values[i]!);
    return out;
  }

  /** The values whose key is a proper prefix of `text` (shorter than it). */
  properPrefixesOf(text: string): T[] {
    const out: T[] = [];
    for (const length of this.#lengths) {
      if (length >= text.length) break;
      const list = this.#byKey.get(text.slice(0, length));
      if (list) out.push(...list);
    }
    return out;
  }

  /** The values whose key starts with `prefix` or is a proper prefix of it: those that can share a name with it. */
  compatibleWith(prefix: string): T[] {
    return [...this.properPrefixesOf(prefix), ...this.startingWith(prefix)];
  }
}
