/**
 * Values keyed by a literal prefix, for lint's pairwise questions ("which exact names can this glob match?",
 * "which globs can share a name with this one?"). A name a glob matches starts with the glob's literal prefix, and
 * two globs can share a name only when one's literal prefix starts with the other's, so both questions become a
 * range of a sorted array plus a few map lookups instead of a scan of every selector.
 *
 * Sorted on the first question, not when built: lint builds one index per document and asks most documents
 * nothing (a document without globs never asks).
 * @module
 */

/** An immutable index of values by string key, built once. */
export class PrefixIndex<T> {
  #keys: readonly string[];
  #values: readonly T[];
  #byKey: Map<string, T[]> | undefined;
  #lengths: number[] | undefined;

  /**
   * @param keys one key per value
   * @param values the values; values with equal keys keep their given order (neither array is modified)
   */
  constructor(keys: readonly string[], values: readonly T[]) {
    this.#keys = keys;
    this.#values = values;
  }

  /** Sorts by key, stably, on first use; groups the values by key on the way. */
  #sort(): void {
    if (this.#byKey !== undefined) return;
    const byKey = new Map<string, T[]>();
    const keys = this.#keys;
    const values = this.#values;
    for (let i = 0; i < keys.length; i++) {
      const list = byKey.get(keys[i]!);
      if (list) list.push(values[i]!);
      else byKey.set(keys[i]!, [values[i]!]);
    }
    this.#byKey = byKey;
    // The distinct keys in the engine's own string order (UTF-16 code units, as `<` compares), each key's values
    // in their given order: a stable sort without a comparator call per comparison.
    const sortedKeys: string[] = [];
    const sortedValues: T[] = [];
    for (const key of [...byKey.keys()].sort()) {
      for (const value of byKey.get(key)!) {
        sortedKeys.push(key);
        sortedValues.push(value);
      }
    }
    this.#keys = sortedKeys;
    this.#values = sortedValues;
  }

  /** The values whose key starts with `prefix` (the empty prefix: all of them), in key order. */
  startingWith(prefix: string): T[] {
    this.#sort();
    const keys = this.#keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: T[] = [];
    for (let i = lo; i < keys.length && keys[i]!.startsWith(prefix); i++) out.push(this.#values[i]!);
    return out;
  }

  /** The values whose key is a proper prefix of `text` (shorter than it). */
  properPrefixesOf(text: string): T[] {
    this.#sort();
    this.#lengths ??= [...new Set(this.#keys.map((k) => k.length))].sort((a, b) => a - b);
    const out: T[] = [];
    for (const length of this.#lengths) {
      if (length >= text.length) break;
      const list = this.#byKey!.get(text.slice(0, length));
      if (list) out.push(...list);
    }
    return out;
  }

  /** The values whose key starts with `prefix` or is a proper prefix of it: those that can share a name with it. */
  compatibleWith(prefix: string): T[] {
    const shorter = this.properPrefixesOf(prefix);
    const longer = this.startingWith(prefix);
    if (shorter.length === 0) return longer;
    for (const v of longer) shorter.push(v);
    return shorter;
  }
}
