/**
 * Lint's view of one mode's compositions: "the mode as composed up to and including document k" for every k, each
 * answering exactly what `composePolicy` over the same documents answers (the policy language, docs/reference/policy-language.md: the ceiling, the
 * first in load order among equals, the built-in default deny when no document decides), but in time that does
 * not grow with the number of documents.
 *
 * Why: lint asks every document's prefix about every name its rules can win. Resolving a name through all k
 * documents of the prefix made lint quadratic in a mode's document count (10 modes of 100 documents of 100 rules
 * took 10 to 25 s to lint; see bench/lint.bench.mjs).
 *
 * How: a document whose selectors do not match a name decides it by its *fallback* (`effects`, then `default`),
 * which depends only on the effective hints (16 combinations). So the mode is indexed once: which documents have a
 * selector that can match a name (exact names by name, globs by their literal prefix, as `resolveInDocument` does
 * within a document), and, per hint combination and decision, the positions whose fallback gives that decision.
 * A name then costs one real resolution per document that matches it, plus a binary search per decision. A glob
 * with no literal prefix (`*_read`) is a candidate for every name, so a mode where every document has one costs
 * what it did before indexing, no more.
 * @module
 */
import { decideCall, documentHasArguments } from './call.js';
import { composePolicy, DEFAULT_DENY_RULE } from './compile.js';
import {
  decisionInDocument,
  effectiveHints,
  pickFallbackInDocument,
  HINT_NAMES,
  hintsKey,
  resolveInDocument,
  RESTRICTIVENESS,
  type ResolveOptions,
} from './document.js';
import type {
  CallDecision,
  CompiledDefault,
  CompiledEffect,
  CallInput,
  CompiledDocument,
  CompiledPolicy,
  CompiledRule,
  Decision,
  DecideCallOptions,
  DecideResult,
  EffectiveHints,
  Hints,
} from './types.js';

/** One sorted list of candidate positions being merged, with the glob prefix to confirm when it is a bucket's. */
interface Cursor {
  positions: readonly number[];
  prefix?: string;
  at: number;
}

/** The document at `position` resolved with some of its entries skipped (lint's "without this rule"). */
export interface OwnSkip {
  position: number;
  skip: NonNullable<ResolveOptions['skip']>;
}

/** Up to this many distinct glob prefix lengths in a mode, a name's longest prefix is found by lookups per length. */
const FEW_LENGTHS = 8;
/** `DECISIONS[ORDER[d]] === d`. */
const DECISIONS: readonly Decision[] = ['deny', 'ask', 'allow'];
const NO_HINTS_KEY = hintsKey({});
const DEFAULT_DENY: DecideResult = Object.freeze({ decision: 'deny', rule: DEFAULT_DENY_RULE });
/** Decisions by index, most restrictive first: `ORDER[decision]` is its index in fallback lists. */
const ORDER: Readonly<Record<Decision, number>> = {
  deny: RESTRICTIVENESS.deny - RESTRICTIVENESS.deny,
  ask: RESTRICTIVENESS.deny - RESTRICTIVENESS.ask,
  allow: RESTRICTIVENESS.deny - RESTRICTIVENESS.allow,
};

/** The 4-bit key of a set of effective hints, bit i for `HINT_NAMES[i]`. */
export function hintKeyOf(hints: EffectiveHints): number {
  // Written out: this runs on every lookup.
  return (
    (hints.readOnly ? 1 : 0) |
    (hints.destructive ? 2 : 0) |
    (hints.idempotent ? 4 : 0) |
    (hints.openWorld ? 8 : 0)
  );
}

/** Every composition of one mode's documents (in load order, `override` documents included). */
export class ModeCompositions {
  readonly #mode: string;
  readonly #docs: readonly CompiledDocument[];
  /** `starts[end]`: where the composition of documents `[0, end)` starts (its last `override`, else 0). */
  readonly #starts: number[] = [0];
  /** Per exact name, the positions of the documents that have it: a number when only one does (most names). */
  #exact: Map<string, number | number[]> | undefined;
  /**
   * The first UTF-16 code units (below 128) of the exact names, and whether some name starts with another: a
   * lookup in `#exact`, a table of every name of the mode, mostly misses the processor's caches, and probes such
   * as a glob's skeletons (`mcp__x__`) often start unlike every exact name.
   */
  #exactFirst = new Uint8Array(128);
  #exactOtherFirst = false;
  /**
   * The distinct literal prefixes of the mode's globs (sorted only when they have many lengths, see
   * `#longestPrefix`); per prefix its bucket, the positions (ascending) of the documents with globs under it, and
   * its parent, the longest other prefix that starts it (or -1); and the index of the empty prefix (or -1).
   */
  #prefixes: string[] = [];
  #buckets: number[][] = [];
  #prefixParent: number[] = [];
  #emptyPrefix = -1;
  /** The first UTF-16 code units of the non-empty prefixes: most names start with none of them. */
  #prefixFirst = new Set<number>();
  /**
   * Each prefix's index in `#prefixes` (filled only when `#prefixByHash` cannot be used), and the distinct lengths
   * of the non-empty ones, longest first.
   */
  #prefixAt = new Map<string, number>();
  #prefixLengths: number[] = [];
  /**
   * Each non-empty prefix's index by {@link prefixHash} of its text, when no two collide (else undefined, and
   * names are sliced and looked up in `#prefixAt`); and room for a name's hashes, one per prefix length.
   */
  #prefixByHash: Map<number, number> | undefined;
  #hashes = new Int32Array(0);
  /** Per position: the exact names of that document that an earlier document also has (undefined: none). */
  readonly #shared: (Set<string> | undefined)[] = [];
  /** Per hint key: each document's fallback result, and per decision the ascending positions giving it. */
  readonly #fallbacks: (Fallbacks | undefined)[] = [];
  /** The last `#firstCandidate` question and answer: a probe asks it once per hint set. */
  readonly #last: { name: string | undefined; from: number; end: number; first: number } = {
    name: undefined,
    from: -1,
    end: -1,
    first: -1,
  };
  readonly #policies = new Map<number, PrefixPolicy>();
  /** `#withArguments[end]`: how many of documents `[0, end)` have argument rules (computed on first use). */
  #withArguments: number[] | undefined;

  constructor(mode: string, docs: readonly CompiledDocument[]) {
    this.#mode = mode;
    this.#docs = docs;
    let from = 0;
    // Same rule as before indexing: the composition up to `end` starts at the last override among [0, end).
    docs.forEach((d, i) => {
      if (d.override) from = i;
      this.#starts.push(from);
    });
  }

  /** Where the composition of `[0, end)` starts. */
  start(end: number): number {
    return this.#starts[end]!;
  }

  /** The memoised policy of the composition up to (excluding) `end`, shared by every caller. */
  policy(end: number): CompiledPolicy {
    let policy = this.#policies.get(end);
    if (policy === undefined) this.#policies.set(end, (policy = new PrefixPolicy(this, end)));
    return policy;
  }

  /** Whether some document of the composition up to (excluding) `end` has `commands` or `paths` patterns. */
  hasArguments(end: number): boolean {
    if (this.#withArguments === undefined) {
      const counts = [0];
      for (const d of this.#docs) counts.push(counts[counts.length - 1]! + (documentHasArguments(d) ? 1 : 0));
      this.#withArguments = counts;
    }
    return this.#withArguments[end]! - this.#withArguments[this.start(end)]! > 0;
  }

  /** The compiled documents of the composition up to (excluding) `end`. */
  documents(end: number): CompiledDocument[] {
    return this.#docs.slice(this.start(end), end);
  }

  get mode(): string {
    return this.#mode;
  }

  /**
   * The ceiling over documents `[start(end), end)` for `name`: what `resolveComposed` answers, or undefined
   * when no document decides. `own`, when given, is resolved with its skip.
   */
  resolve(end: number, name: string, hints: Hints | undefined, own?: OwnSkip): DecideResult | undefined {
    const from = this.start(end);
    if (end <= from) return undefined;
    const h = effectiveHints(hints);
    const options = (position: number) => (own?.position === position ? { skip: own.skip } : {});
    // One document: the ceiling is its own resolution.
    if (end - from === 1) return resolveInDocument(this.#docs[from]!, name, h, options(from));
    const ownAt = own !== undefined && own.position >= from && own.position < end ? own.position : undefined;
    const next = this.#candidates(name, from, end, ownAt);
    const fallback = this.#fallback(hintKeyOf(h));
    // Documents are visited in load order, like the ceiling itself: the first deny, explicit or by a fallback of a
    // document whose selectors do not match, is the answer, so a mode that denies early costs little.
    const denies = fallback.byDecision[ORDER.deny]!;
    let di = lowerBound(denies, from);
    const matched: number[] = [];
    let mi = 0;
    const explicitAt: (number | undefined)[] = [undefined, undefined, undefined];
    const explicit: (DecideResult | undefined)[] = [undefined, undefined, undefined];
    for (;;) {
      const c = next();
      for (; di < denies.length && denies[di]! < c; di++) {
        const d = denies[di]!;
        while (mi < matched.length && matched[mi]! < d) mi++;
        if (matched[mi] !== d) return fallback.result(d);
      }
      if (c >= end) break;
      matched.push(c);
      const r = resolveInDocument(this.#docs[c]!, name, h, options(c));
      if (r === undefined) continue;
      if (r.decision === 'deny') return r;
      const k = ORDER[r.decision];
      if (explicitAt[k] === undefined) [explicitAt[k], explicit[k]] = [c, r];
    }
    // Nothing denies: the earliest `ask`, else the earliest `allow`, explicit or by a non-matching fallback.
    for (let k = ORDER.ask; k <= ORDER.allow; k++) {
      const positions = fallback.byDecision[k]!;
      let i = lowerBound(positions, from);
      let m = 0;
      for (; i < positions.length && positions[i]! < end; i++) {
        while (m < matched.length && matched[m]! < positions[i]!) m++;
        if (matched[m] !== positions[i]) break;
      }
      const implicit = i < positions.length && positions[i]! < end ? positions[i]! : undefined;
      const at = explicitAt[k];
      if (implicit !== undefined && (at === undefined || implicit < at)) return fallback.result(implicit);
      if (at !== undefined) return explicit[k];
    }
    return undefined;
  }

  /**
   * The ceiling over the documents that come before `position` in its composition (none when it is an
   * `override`), or undefined when none decides. The composition up to `position` is this and the document at
   * `position` (the later one wins only when strictly more restrictive).
   */
  resolveBefore(position: number, name: string, hints: Hints | undefined): DecideResult | undefined {
    return this.#docs[position]!.override ? undefined : this.resolve(position, name, hints);
  }

  /**
   * The decision alone of {@link resolveBefore}, for lint's probes. The common answers cost a few lookups and no
   * allocation. The documents before the first one with a selector that may match `name` decide it by their
   * fallbacks: when one of those denies, a deny is the ceiling whatever the others say; when no document has such
   * a selector, the ceiling is the most restrictive fallback.
   */
  decisionBefore(position: number, name: string, hints: Hints | undefined): Decision | undefined {
    if (this.#docs[position]!.override) return undefined;
    const from = this.start(position);
    if (position <= from) return undefined;
    if (position - from === 1) return decisionInDocument(this.#docs[from]!, name, hints);
    const fallback = this.#fallback(hints === undefined ? NO_HINTS_KEY : hintsKey(hints));
    const first = this.#firstCandidate(name, from, position);
    const deny = fallback.firstFrom(ORDER.deny, from);
    if (deny !== undefined && deny < first) return 'deny';
    if (first === position) {
      // No candidate: the earliest `ask`, else the earliest `allow`, by fallback (`resolve` answers the same).
      for (let k = ORDER.ask; k <= ORDER.allow; k++) {
        const at = fallback.firstFrom(k, from);
        if (at !== undefined && at < position) return DECISIONS[k];
      }
      return undefined;
    }
    return this.resolve(position, name, hints)?.decision;
  }

  /**
   * A lower bound of the first position in `[from, end)` of a document with a selector that may match `name`
   * (exact, or a glob by its literal prefix, unconfirmed); `end` when there is none.
   */
  #firstCandidate(name: string, from: number, end: number): number {
    if (name === this.#last.name && from === this.#last.from && end === this.#last.end)
      return this.#last.first;
    if (this.#exact === undefined) this.#index();
    let first = end;
    // A name of the document at `end` is looked up in the mode's index only when an earlier document also has it
    // (most have none in common): that document's own table is cheaper to ask than the mode's.
    const shared = end < this.#docs.length ? this.#shared[end] : undefined;
    if (
      (!(end < this.#docs.length && this.#docs[end]!.exact.has(name)) || shared?.has(name) === true) &&
      this.#mayBeExact(name)
    ) {
      const exact = this.#exact!.get(name);
      if (typeof exact === 'number') {
        if (exact >= from && exact < first) first = exact;
      } else if (exact !== undefined) first = Math.min(first, exact[lowerBound(exact, from)] ?? end);
    }
    for (let k = this.#longestPrefix(name); k >= 0; k = this.#prefixParent[k]!) {
      const positions = this.#buckets[k]!;
      const at = positions[lowerBound(positions, from)];
      if (at !== undefined && at < first) first = at;
    }
    const last = this.#last;
    last.name = name;
    last.from = from;
    last.end = end;
    return (last.first = first);
  }

  /** Whether some document of the mode may have `name` as an exact name (false: none has; by its first unit). */
  #mayBeExact(name: string): boolean {
    const first = name.length === 0 ? 0 : name.charCodeAt(0);
    return first < 128 ? this.#exactFirst[first] === 1 : this.#exactOtherFirst;
  }

  /**
   * A cursor over the positions in `[from, end)` of the documents with a selector that matches `name` (and
   * `extra`), ascending, each once; it returns `end` when there are no more. A merge of the exact-name list and
   * the glob buckets under the name's prefixes, which are each in load order.
   */
  #candidates(name: string, from: number, end: number, extra: number | undefined): () => number {
    if (this.#exact === undefined) this.#index();
    const lists: Cursor[] = [];
    const exact = this.#exact!.get(name);
    if (typeof exact === 'number') lists.push({ positions: [exact], at: exact >= from ? 0 : 1 });
    else if (exact !== undefined) lists.push({ positions: exact, at: lowerBound(exact, from) });
    if (extra !== undefined) lists.push({ positions: [extra], at: 0 });
    for (let k = this.#longestPrefix(name); k >= 0; k = this.#prefixParent[k]!) {
      const bucket = this.#buckets[k]!;
      lists.push({
        positions: bucket,
        prefix: this.#prefixes[k]!,
        at: lowerBound(bucket, from),
      });
    }
    let last = -1;
    return () => {
      for (;;) {
        let best: Cursor | undefined;
        for (const list of lists) {
          if (
            list.at < list.positions.length &&
            (!best || list.positions[list.at]! < best.positions[best.at]!)
          )
            best = list;
        }
        if (best === undefined) return end;
        const position = best.positions[best.at]!;
        if (position >= end) return end;
        const prefix = best.prefix;
        best.at++;
        if (position === last) continue;
        // A bucket's document has globs under its prefix: one of them must match.
        if (
          prefix !== undefined &&
          !this.#docs[position]!.globsByPrefix.get(prefix)!.some((r) => r.match(name))
        )
          continue;
        return (last = position);
      }
    };
  }

  /**
   * The index in `#prefixes` of the longest glob prefix that starts `name`, or -1; the others that start it are
   * its `#prefixParent` chain.
   */
  #longestPrefix(name: string): number {
    // No non-empty prefix starts with this name's first character: only '' can start it.
    if (name.length === 0 || !this.#prefixFirst.has(name.charCodeAt(0))) return this.#emptyPrefix;
    return this.#prefixLengths.length <= FEW_LENGTHS
      ? this.#longestByLength(name, name.length)
      : this.#longestBySearch(name);
  }

  /**
   * The longest prefix of `name` no longer than `limit`, by one lookup per distinct prefix length, the longest
   * first. Globs such as `mcp__server__*` share a handful of lengths, and then this costs less than comparing
   * strings that mostly agree for their first characters. The lookups are by a hash of the name's first
   * characters, computed in one pass: a slice per length would be a string to allocate and hash for each.
   */
  #longestByLength(name: string, limit: number): number {
    const lengths = this.#prefixLengths;
    const byHash = this.#prefixByHash;
    if (byHash === undefined) {
      for (const length of lengths) {
        if (length > limit) continue;
        const k = this.#prefixAt.get(length === name.length ? name : name.slice(0, length));
        if (k !== undefined) return k;
      }
      return this.#emptyPrefix;
    }
    const keys = this.#prefixes;
    const hashes = this.#hashes;
    let h = 0;
    let i = 0;
    let longest = lengths.length;
    // Shortest length first, extending the hash as far as the limit.
    for (let j = lengths.length - 1; j >= 0 && lengths[j]! <= limit; j--) {
      for (const end = lengths[j]!; i < end; i++) h = prefixHashStep(h, name.charCodeAt(i));
      hashes[j] = h;
      longest = j;
    }
    for (let j = longest; j < lengths.length; j++) {
      const k = byHash.get(hashes[j]!);
      if (k === undefined) continue;
      const key = keys[k]!;
      if (key.length === lengths[j] && name.startsWith(key)) return k;
    }
    return this.#emptyPrefix;
  }

  /**
   * {@link longestPrefix} over the sorted prefixes, when their lengths are many. (The longest prefix of `name`
   * sorts at or before `name`, and every key between the two starts with it, so it is on the parent chain of the
   * last key at or before `name`.)
   */
  #longestBySearch(name: string): number {
    const keys = this.#prefixes;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! <= name) lo = mid + 1;
      else hi = mid;
    }
    let k = lo - 1;
    while (k >= 0 && !name.startsWith(keys[k]!)) k = this.#prefixParent[k]!;
    return k;
  }

  #index(): void {
    const exact = new Map<string, number | number[]>();
    this.#exact = exact;
    // The buckets hold positions only (a mode has thousands): a document's globs under a prefix are its own.
    const globs = new Map<string, number[]>();
    this.#docs.forEach((doc, position) => {
      let shared: Set<string> | undefined;
      for (const name of doc.exact.keys()) {
        const first = name.length === 0 ? 0 : name.charCodeAt(0);
        if (first < 128) this.#exactFirst[first] = 1;
        else this.#exactOtherFirst = true;
        const known = exact.get(name);
        if (known === undefined) exact.set(name, position);
        else {
          if (typeof known === 'number') exact.set(name, [known, position]);
          else known.push(position);
          (shared ??= new Set()).add(name);
        }
      }
      this.#shared.push(shared);
      for (const prefix of doc.globsByPrefix.keys()) {
        const bucket = globs.get(prefix);
        if (bucket === undefined) globs.set(prefix, [position]);
        else bucket.push(position);
      }
    });
    const prefixes = [...globs.keys()];
    const lengths = [...new Set(prefixes.map((p) => p.length))].filter((length) => length > 0);
    this.#prefixLengths = lengths.sort((a, b) => b - a);
    const few = lengths.length <= FEW_LENGTHS;
    // Only a search over many lengths needs the prefixes sorted (a mode of 100 documents has thousands); the
    // default sort compares UTF-16 code units, as `<` does.
    if (!few) prefixes.sort();
    this.#prefixes = prefixes;
    this.#buckets = prefixes.map((p) => globs.get(p)!);
    this.#emptyPrefix = prefixes.indexOf('');
    for (const p of prefixes) if (p.length > 0) this.#prefixFirst.add(p.charCodeAt(0));
    if (few) {
      // Tables for lookups per length: by hash, and by text only when two hashes collide.
      this.#hashes = new Int32Array(lengths.length);
      const byHash = new Map<number, number>();
      let collides = false;
      for (let k = 0; k < prefixes.length && !collides; k++) {
        const p = prefixes[k]!;
        if (p.length === 0) continue;
        const h = prefixHash(p);
        collides = byHash.has(h);
        byHash.set(h, k);
      }
      if (collides) this.#prefixAt = new Map(prefixes.map((p, k) => [p, k]));
      else this.#prefixByHash = byHash;
      // A prefix's parent is the longest prefix of it that is shorter.
      this.#prefixParent = prefixes.map((p) =>
        p.length === 0 ? -1 : this.#longestByLength(p, p.length - 1),
      );
      return;
    }
    // Sorted, a key comes right after the keys that start it: a stack of the current chain gives each its parent.
    const chain: number[] = [];
    this.#prefixParent = prefixes.map((key, k) => {
      while (chain.length > 0 && !key.startsWith(prefixes[chain[chain.length - 1]!]!)) chain.pop();
      const parent = chain.length > 0 ? chain[chain.length - 1]! : -1;
      chain.push(k);
      return parent;
    });
  }

  #fallback(key: number): Fallbacks {
    let entry = this.#fallbacks[key];
    if (entry !== undefined) return entry;
    const hints = Object.fromEntries(
      HINT_NAMES.map((h, bit) => [h, (key & (1 << bit)) !== 0]),
    ) as EffectiveHints;
    const byDecision: number[][] = [[], [], []];
    // What decides a name that no selector matches: the entry alone, its result (and so its location in the
    // file) built only when `resolve` returns it; `decisionBefore` needs the decisions only.
    const entries = this.#docs.map((doc, position) => {
      const e = pickFallbackInDocument(doc, hints);
      if (e !== undefined) byDecision[ORDER[e.decision]]!.push(position);
      return e;
    });
    this.#fallbacks[key] = entry = new Fallbacks(entries, byDecision);
    return entry;
  }
}

/** Per document of a mode, what decides a name no selector matches, for one set of effective hints. */
class Fallbacks {
  readonly #entries: readonly (CompiledEffect | CompiledDefault | undefined)[];
  readonly #results: (DecideResult | undefined)[] = [];
  /** Per decision (`ORDER`), the ascending positions whose fallback gives it. */
  readonly byDecision: readonly number[][];

  /** Per decision, the last `firstFrom` question and answer (a probe asks for one composition at a time). */
  readonly #from: number[] = [-1, -1, -1];
  readonly #first: (number | undefined)[] = [undefined, undefined, undefined];

  constructor(entries: readonly (CompiledEffect | CompiledDefault | undefined)[], byDecision: number[][]) {
    this.#entries = entries;
    this.byDecision = byDecision;
  }

  /** The first position at or after `from` whose fallback gives the decision `ORDER[k]`, if any. */
  firstFrom(k: number, from: number): number | undefined {
    if (this.#from[k] !== from) {
      const list = this.byDecision[k]!;
      this.#from[k] = from;
      this.#first[k] = list[lowerBound(list, from)];
    }
    return this.#first[k];
  }

  /** What `resolveInDocument` answers at `position` for a name no selector matches (frozen, built once). */
  result(position: number): DecideResult | undefined {
    const known = this.#results[position];
    if (known !== undefined) return known;
    const e = this.#entries[position];
    if (e === undefined) return undefined;
    const r: DecideResult =
      e.kind === 'effect' && e.reason !== undefined
        ? { decision: e.decision, reason: e.reason, rule: e.ref }
        : { decision: e.decision, rule: e.ref };
    return (this.#results[position] = Object.freeze(r));
  }
}

/** A {@link CompiledPolicy} over one prefix, memoised per (name, effective hints) like the compiler's. */
class PrefixPolicy implements CompiledPolicy {
  readonly #owner: ModeCompositions;
  readonly #end: number;
  readonly #tables = new Map<number, Map<string, DecideResult>>();
  #composed: CompiledPolicy | undefined;

  constructor(owner: ModeCompositions, end: number) {
    this.#owner = owner;
    this.#end = end;
  }

  get mode(): string {
    return this.#owner.mode;
  }

  /** Section, description and documents come from the compiler's own composition, built on first use. */
  get #base(): CompiledPolicy {
    return (this.#composed ??= composePolicy(this.#owner.mode, this.#owner.documents(this.#end)));
  }

  get section(): string {
    return this.#base.section;
  }

  get description(): string | undefined {
    return this.#base.description;
  }

  get documents(): readonly CompiledDocument[] | undefined {
    return this.#base.documents;
  }

  decide(name: string, hints?: Hints): DecideResult {
    const key = hintKeyOf(effectiveHints(hints));
    let table = this.#tables.get(key);
    if (table === undefined) this.#tables.set(key, (table = new Map()));
    let hit = table.get(name);
    if (hit === undefined) {
      const r = this.#owner.resolve(this.#end, String(name), hints);
      table.set(name, (hit = r === undefined ? DEFAULT_DENY : Object.freeze(r)));
    }
    return hit;
  }

  visible(name: string, hints?: Hints): boolean {
    return this.decide(name, hints).decision !== 'deny';
  }

  decideCall(call: CallInput, options?: DecideCallOptions): CallDecision {
    // Without argument rules in the prefix a call is its name: the memoised lookup, and no composed policy.
    return this.#owner.hasArguments(this.#end)
      ? decideCall(this.#base, call, options)
      : this.decide(call.name, call.hints);
  }
}

/** One step of {@link prefixHash}: the hash of a text extended by one UTF-16 code unit. */
function prefixHashStep(h: number, unit: number): number {
  return (Math.imul(h, 31) + unit) | 0;
}

/** A 32-bit hash of a text, extended one code unit at a time (so a name's prefixes hash in one pass). */
function prefixHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = prefixHashStep(h, text.charCodeAt(i));
  return h;
}

/**
 * The first index whose value is at least `x` (`list` ascending). Numbers only: prefix-index.ts has the same search
 * over strings, kept apart so that each compares one type on its hot path.
 */
function lowerBound(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
