/**
 * The classes of tool names that a mode's globs tell apart, each with its shortest member.
 *
 * Two names that no glob of either side tells apart (the same globs match both) and that no rule names exactly
 * are decided alike by name, so one member of each class stands for all. The globs run as automata over the
 * tokens of `glob-syntax.ts` (`*` any run, `/` included; `?` one character; a class its members), side by side
 * with one that accepts exactly the plain names (so a member is never one of them: those are asked on their
 * own), breadth first: the first member found of a class is a shortest one. The alphabet is every character the
 * globs write and one character for each way the classes split the rest (every character of the Basic
 * Multilingual Plane is tested against every class), so no class of names is missed. Each member is checked
 * against the real matchers; a member they decide otherwise is marked.
 * @module
 */
import { tokenizeGlob, type GlobToken } from '../../language/glob-syntax.js';
import { anyChar, breadthFirst, chars, Machine, otherChar, type Label } from './machine.js';

/** A glob as the search needs it: its brace-free pattern and the matcher the compiler uses. */
export interface NameGlob {
  readonly pattern: string;
  match(name: string): boolean;
}

/** One class of names. */
export interface NameClass {
  readonly name: string;
  /** Which globs match it. */
  readonly matches: readonly boolean[];
  /** Why the member does not stand for its class, when the real matchers disagree. */
  readonly inexact?: string;
}

/** What the search found. */
export interface NameClasses {
  readonly classes: readonly NameClass[];
  readonly truncated: boolean;
}

/** Product states visited at most. */
export const NAME_STATE_BUDGET = 100_000;

function globMachine(tokens: readonly GlobToken[]): Machine {
  const m = new Machine();
  let cur = 0;
  for (const t of tokens) {
    if (t.kind === 'star') {
      const loop = m.state();
      m.epsilon(cur, loop);
      m.edge(loop, anyChar(), loop);
      cur = loop;
      continue;
    }
    const next = m.state();
    const label: Label =
      t.kind === 'any'
        ? anyChar()
        : t.kind === 'literal'
          ? chars(t.text.codePointAt(0)!)
          : { kind: 'pred', test: (c) => t.test(String.fromCodePoint(c)) };
    m.edge(cur, label, next);
    cur = next;
  }
  m.accept(cur);
  return m;
}

/** An automaton accepting exactly the given names. */
function trieMachine(names: Iterable<string>): Machine {
  const m = new Machine();
  const children = new Map<string, number>();
  for (const name of names) {
    let cur = 0;
    for (const ch of name) {
      const c = ch.codePointAt(0)!;
      const key = `${cur}:${c}`;
      let next = children.get(key);
      if (next === undefined) {
        next = m.state();
        children.set(key, next);
        m.edge(cur, chars(c), next);
      }
      cur = next;
    }
    m.accept(cur);
  }
  return m;
}

/**
 * The characters worth trying: every literal, one per way the classes split the rest, one for all others.
 * @returns code points, readable ones first
 */
function alphabetOf(programs: readonly GlobToken[][], exact: Iterable<string>): number[] {
  const literals = new Set<number>();
  for (const tokens of programs)
    for (const t of tokens) if (t.kind === 'literal') literals.add(t.text.codePointAt(0)!);
  for (const name of exact) for (const ch of name) literals.add(ch.codePointAt(0)!);
  const classes = programs.flatMap((tokens) =>
    tokens.filter((t): t is GlobToken & { kind: 'class' } => t.kind === 'class'),
  );
  const out = new Set(literals);
  if (classes.length > 0) {
    // Readable characters first, so a member reads well when it can.
    const order = [
      ...Array.from({ length: 0x5e }, (_, i) => 0x21 + i),
      ...Array.from({ length: 0x10000 }, (_, i) => i),
    ];
    const signatures = new Set<string>();
    for (const c of order) {
      if (literals.has(c) || (c >= 0xd800 && c <= 0xdfff)) continue;
      const ch = String.fromCodePoint(c);
      const sig = classes.map((k) => (k.test(ch) ? 1 : 0)).join('');
      if (signatures.has(sig)) continue;
      signatures.add(sig);
      out.add(c);
    }
    return [...out];
  }
  // The character for all others first, so a name no glob matches reads `x`.
  return [otherChar(literals), ...out];
}

/**
 * The classes of names the globs tell apart, without the plain names (which are asked on their own).
 * @param globs every glob alternative of the mode, on either side
 * @param exact every plain name the mode's rules (or the catalog) name
 * @returns a shortest member of each class
 */
export function nameClasses(globs: readonly NameGlob[], exact: ReadonlySet<string>): NameClasses {
  const programs = globs.map((g) => tokenizeGlob(g.pattern));
  const machines = programs.map(globMachine);
  const trie = trieMachine(exact);
  const alphabet = alphabetOf(programs, exact);
  interface Node {
    sets: number[];
    trie: number;
    name: string;
  }
  const keyOf = (n: Node) => `${n.trie}|${n.sets.join(',')}`;
  const start: Node = { sets: machines.map((m) => m.start), trie: trie.start, name: '' };
  const found = new Map<string, NameClass>();
  const { truncated } = breadthFirst(start, keyOf, NAME_STATE_BUDGET, function* (node) {
    if (node.name !== '' && !trie.accepting(node.trie)) {
      const matches = node.sets.map((s, i) => machines[i]!.accepting(s));
      const key = matches.map((b) => (b ? 1 : 0)).join('');
      if (!found.has(key)) {
        const real = globs.map((g) => g.match(node.name));
        const out: NameClass = { name: node.name, matches };
        found.set(
          key,
          real.every((r, i) => r === matches[i])
            ? out
            : { ...out, inexact: `the glob matcher decides \`${node.name}\` otherwise` },
        );
      }
    }
    // Once no glob can change its answer and no plain name is ahead, longer names add no class.
    if (trie.isDead(node.trie) && node.name !== '' && node.sets.every((s, i) => machines[i]!.isDead(s)))
      return;
    for (const c of alphabet) {
      yield {
        sets: node.sets.map((s, i) => machines[i]!.step(s, c, false)),
        trie: trie.step(node.trie, c, false),
        name: node.name + String.fromCodePoint(c),
      };
    }
  });
  return { classes: [...found.values()], truncated };
}
