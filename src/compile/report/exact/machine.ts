/**
 * A small nondeterministic automaton, run as a deterministic one: the exact diff's one piece of automata code.
 *
 * An automaton reads symbols (numbers: a character's code, or one of the markers below) along labelled edges and
 * epsilon edges. It is run on sets of states, and each set it reaches is interned as a number with its moves
 * memoised, so a search over the product of many automata (one per pattern) steps each by a table lookup: the
 * subset construction, done lazily, only for the sets a search reaches. Nothing here knows about policies.
 * @module
 */

/** The symbol that ends a word of a command (it never occurs in a shell word: bash words are C strings). */
export const SEP = -1;
/** The symbol that stands for a whole word whose value is not known before the script runs (`$X`). */
export const TOP = -2;

/** What an edge accepts. */
export type Label =
  | { readonly kind: 'char'; readonly chars: ReadonlySet<number> }
  | { readonly kind: 'any'; readonly except?: ReadonlySet<number> }
  | { readonly kind: 'pred'; readonly test: (c: number) => boolean }
  | { readonly kind: 'sep' }
  | { readonly kind: 'top' };

/** Where an edge applies: only while reading a command's first word (`name`), only after it (`arg`), or always. */
export type Guard = 'name' | 'arg' | undefined;

interface Edge {
  readonly label: Label;
  readonly to: number;
  readonly guard: Guard;
}

/** Whether a label accepts a symbol (characters are never SEP or TOP, so `any` excludes both). */
export function accepts(label: Label, symbol: number): boolean {
  switch (label.kind) {
    case 'sep':
      return symbol === SEP;
    case 'top':
      return symbol === TOP;
    case 'char':
      return label.chars.has(symbol);
    case 'any':
      return symbol >= 0 && !(label.except?.has(symbol) ?? false);
    case 'pred':
      return symbol >= 0 && label.test(symbol);
  }
}

/** A builder and runner of one automaton. State 0 is the start. */
export class Machine {
  readonly #edges: Edge[][] = [[]];
  readonly #eps: number[][] = [[]];
  readonly #accepting = new Set<number>();
  /** Interned state sets: key → id, and id → the sorted states. */
  readonly #ids = new Map<string, number>();
  readonly #sets: number[][] = [];
  readonly #moves = new Map<number, number>();
  readonly #universal = new Set<number>();
  readonly #universalSets = new Map<number, boolean>();
  readonly #chars = new Set<number>();
  readonly #outChars = new Map<number, readonly number[]>();
  #dead = -1;
  #settled = -1;
  #sealed = false;

  /** A new state. */
  state(): number {
    this.#edges.push([]);
    this.#eps.push([]);
    return this.#edges.length - 1;
  }

  edge(from: number, label: Label, to: number, guard?: Guard): void {
    this.#edges[from]!.push({ label, to, guard });
    if (label.kind === 'char') for (const c of label.chars) this.#chars.add(c);
  }

  /**
   * Marks a state from which every continuation that ends at a word boundary is accepted (a trailing `**` of a
   * deny or ask pattern), so a search can tell that the automaton's answer is settled.
   */
  universal(state: number): void {
    this.#universal.add(state);
  }

  /** The characters some edge names: every other character is read alike. */
  get literals(): ReadonlySet<number> {
    return this.#chars;
  }

  epsilon(from: number, to: number): void {
    this.#eps[from]!.push(to);
  }

  accept(state: number): void {
    this.#accepting.add(state);
  }

  /** The id of the start set (the start state and what epsilon edges reach from it). */
  get start(): number {
    this.#sealed = true;
    return this.intern(this.closure([0]));
  }

  /** The id of the empty set: a dead automaton. */
  get dead(): number {
    if (this.#dead < 0) this.#dead = this.intern([]);
    return this.#dead;
  }

  /**
   * The characters that edges out of an interned set name (with the epsilon closure already in the set): from
   * this set, every other character is read alike.
   */
  outChars(set: number): readonly number[] {
    let out = this.#outChars.get(set);
    if (out === undefined) {
      const chars = new Set<number>();
      for (const s of this.#sets[set]!)
        for (const e of this.#edges[s]!)
          if (e.label.kind === 'char') for (const c of e.label.chars) chars.add(c);
      out = [...chars];
      this.#outChars.set(set, out);
    }
    return out;
  }

  /** Whether an interned set holds a state marked {@link universal}. */
  isUniversal(set: number): boolean {
    let hit = this.#universalSets.get(set);
    if (hit === undefined) {
      hit = this.#sets[set]!.some((s) => this.#universal.has(s));
      this.#universalSets.set(set, hit);
    }
    return hit;
  }

  /** One set standing for every universal set: a settled automaton's runs can merge into it. */
  get settled(): number {
    if (this.#settled < 0) {
      const first = [...this.#universal][0];
      if (first === undefined) throw new Error('machine: no universal state');
      this.#settled = this.intern(this.closure([first]));
    }
    return this.#settled;
  }

  /**
   * One step of the subset construction, memoised.
   * @param set an interned set's id
   * @param symbol the symbol read
   * @param atName whether the symbol belongs to a command's first word (for guarded edges)
   * @returns the id of the set reached
   */
  step(set: number, symbol: number, atName: boolean): number {
    if (set === this.#dead) return set;
    // Symbols are at least TOP (-2); sets and symbols stay far below 2^53 in this product.
    const key = (set * 0x110004 + (symbol + 2)) * 2 + (atName ? 1 : 0);
    const hit = this.#moves.get(key);
    if (hit !== undefined) return hit;
    const next: number[] = [];
    for (const s of this.#sets[set]!) {
      for (const e of this.#edges[s]!) {
        if (e.guard === 'name' && !atName) continue;
        if (e.guard === 'arg' && atName) continue;
        if (accepts(e.label, symbol)) next.push(e.to);
      }
    }
    const id = this.intern(this.closure(next));
    this.#moves.set(key, id);
    return id;
  }

  /** Whether an interned set holds an accepting state. */
  accepting(set: number): boolean {
    return this.#sets[set]!.some((s) => this.#accepting.has(s));
  }

  /** Whether an interned set is empty (nothing read from here on can be accepted). */
  isDead(set: number): boolean {
    return this.#sets[set]!.length === 0;
  }

  private closure(states: readonly number[]): number[] {
    if (!this.#sealed) throw new Error('machine: closure before the machine is sealed');
    const seen = new Set<number>();
    const todo = [...states];
    while (todo.length > 0) {
      const s = todo.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      for (const t of this.#eps[s]!) todo.push(t);
    }
    return [...seen].sort((a, b) => a - b);
  }

  private intern(states: number[]): number {
    const key = states.join(',');
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#sets.length;
      this.#sets.push(states);
      this.#ids.set(key, id);
    }
    return id;
  }
}

/** A label for one character, or a set of them. */
export function chars(...codes: number[]): Label {
  return { kind: 'char', chars: new Set(codes) };
}

/** A label for any character, or any but some. */
export function anyChar(except?: readonly number[]): Label {
  return except === undefined || except.length === 0
    ? { kind: 'any' }
    : { kind: 'any', except: new Set(except) };
}

export const SEP_LABEL: Label = { kind: 'sep' };
export const TOP_LABEL: Label = { kind: 'top' };

/** A character none of the given ones: for every character the patterns do not write. */
export function otherChar(used: ReadonlySet<number>): number {
  for (const c of 'xqzkjvwybh') if (!used.has(c.charCodeAt(0))) return c.charCodeAt(0);
  let c = 0xe0;
  while (used.has(c)) c++;
  return c;
}

/**
 * Breadth-first search over a product of automata, each state (by `keyOf`) visited once, so the first member
 * found of each class is a shortest one. `visit` records a node and yields its successors. Stops after `budget`
 * states, the answer then marked truncated (the caller reports it as inexact, never as "no change").
 * @returns whether the budget ended the search, and how many states it visited
 */
export function breadthFirst<N>(
  start: N,
  keyOf: (node: N) => string,
  budget: number,
  visit: (node: N) => Iterable<N>,
): { truncated: boolean; states: number } {
  const seen = new Set([keyOf(start)]);
  let frontier = [start];
  while (frontier.length > 0) {
    const next: N[] = [];
    for (const node of frontier) {
      for (const moved of visit(node)) {
        const key = keyOf(moved);
        if (seen.has(key)) continue;
        if (seen.size >= budget) return { truncated: true, states: seen.size };
        seen.add(key);
        next.push(moved);
      }
    }
    frontier = next;
  }
  return { truncated: false, states: seen.size };
}
