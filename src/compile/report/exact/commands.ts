/**
 * The classes of simple commands that a set of `commands:` tables tells apart, each with its shortest member.
 *
 * A simple command is encoded as one string over characters and two markers: each word's characters followed by
 * `SEP`, a word whose value is not known (`$X`) as `TOP SEP`. Each pattern becomes two automata over that string
 * (`machine.ts`): one reads the words as written, one reads them with bundled short options split (`-uo` is
 * `-u -o`, as `splitShortOptions` does: every word after the name that starts with one dash and has more than two
 * characters), through a small transducer that holds back a word's first two characters until it knows whether
 * the word splits. A deny or ask pattern matches when either automaton accepts, an allow pattern when both do,
 * which is how the decision matches (`command-table.ts`). Names follow the matcher too: for deny and ask a name
 * with a `/` also matches by its basename; for allow, a name with a `/` only equals a pattern word written with
 * that path; an unknown word matches any deny or ask pattern word, no allow word.
 *
 * The search runs all automata side by side, breadth first over an alphabet of every character the patterns
 * write, `/`, `-`, the names below and one character for all others (no pattern tells two such characters
 * apart). Each product state is visited once, so it ends; at each word boundary the winning pattern of every
 * table (most specific, then most restrictive, then first) makes the command's class, and the first member
 * found is a shortest one. Besides the patterns, the search tells `git` (whose allow is withheld after a folder
 * move) and `cd`, `pushd`, `popd` (which move) apart from other names.
 *
 * Every member returned is checked against the real matcher (`pick`) and the real analyser (the script must be
 * that one command and nothing else): a class whose member fails either check is marked, and the caller reports
 * the diff as not exact there instead of trusting it.
 * @module
 */
import { pick, type CommandRule } from '../../decide/command-table.js';
import { extractCommands, folderMove, type ShellWord } from '../../shell/index.js';
import { RESTRICTIVENESS } from '../../decide/restrictiveness.js';
import {
  anyChar,
  breadthFirst,
  chars,
  Machine,
  otherChar,
  SEP,
  SEP_LABEL,
  TOP,
  TOP_LABEL,
} from './machine.js';
import type { Decision } from '../../types.js';

/** One `commands:` table as the search needs it. */
export interface CommandTableInput {
  readonly patterns: readonly CommandRule[];
}

/** One class of simple commands: its shortest member and what each table decides for it. */
export interface CommandClass {
  /** The member's words, the name first; `null` for a word whose value is not known. */
  readonly words: readonly (string | null)[];
  /** The member as a script a reviewer can paste. */
  readonly script: string;
  /** Per table, the index of the winning pattern, or -1 when none matches. */
  readonly winners: readonly number[];
  /** Whether the command is `git` (its basename). */
  readonly git: boolean;
  /** Whether the command moves later programs to another folder (`folderMove`). */
  readonly move: boolean;
  /** Whether the script also holds something the analyser cannot explain (an unknown command name). */
  readonly unanalysable: boolean;
  /** Why the member does not stand for its class exactly, when it does not (see the module header). */
  readonly inexact?: string;
}

/** What the search found. */
export interface CommandClasses {
  readonly classes: readonly CommandClass[];
  /** Set when the search stopped at its budget: the classes may be incomplete. */
  readonly truncated: boolean;
  /** Product states visited. */
  readonly states: number;
}

/** Product states visited at most. */
export const COMMAND_STATE_BUDGET = 200_000;

const DASH = 45;
const SLASH = 47;
const STAR = 42;
const NAMES = ['git', 'cd', 'pushd', 'popd'] as const;

/** The transducer's state for the split form: where in a word it is and what it holds back. */
interface Split {
  /** True until the first word ends. */
  readonly atName: boolean;
  /** `start` at a word's start, `raw` copying, `split` splitting, `held` holding back `held`. */
  readonly mode: 'start' | 'raw' | 'split' | 'held';
  readonly held: readonly number[];
}

const START: Split = { atName: true, mode: 'start', held: [] };

/**
 * One symbol through the transducer.
 * @returns the next state and what the split form reads (each with whether it is in the name word)
 */
function splitStep(state: Split, symbol: number): { next: Split; out: number[] } {
  if (state.atName) {
    return symbol === SEP
      ? { next: { atName: false, mode: 'start', held: [] }, out: [SEP] }
      : { next: state, out: [symbol] };
  }
  const reset: Split = { atName: false, mode: 'start', held: [] };
  switch (state.mode) {
    case 'start':
      if (symbol === SEP) return { next: reset, out: [SEP] };
      if (symbol === DASH) return { next: { atName: false, mode: 'held', held: [DASH] }, out: [] };
      return { next: { atName: false, mode: 'raw', held: [] }, out: [symbol] };
    case 'raw':
      return { next: symbol === SEP ? reset : state, out: [symbol] };
    case 'split':
      return symbol === SEP ? { next: reset, out: [] } : { next: state, out: [DASH, symbol, SEP] };
    case 'held': {
      const held = state.held;
      if (symbol === SEP) return { next: reset, out: [...held, SEP] };
      if (held.length === 1) {
        // `--…` is a long option: never split.
        if (symbol === DASH) return { next: { atName: false, mode: 'raw', held: [] }, out: [DASH, DASH] };
        return { next: { atName: false, mode: 'held', held: [DASH, symbol] }, out: [] };
      }
      // A third character: the word splits, one option per character after the dash.
      return {
        next: { atName: false, mode: 'split', held: [] },
        out: [DASH, held[1]!, SEP, DASH, symbol, SEP],
      };
    }
  }
}

const splitKey = (s: Split): string => `${s.atName ? 'n' : 'a'}${s.mode}${s.held.join('.')}`;

/** The glob of one pattern word, as characters and `*` runs (`null`). */
function globOf(text: string): (number | null)[] {
  const out: (number | null)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === STAR) {
      if (out.at(-1) !== null) out.push(null);
    } else out.push(c);
  }
  return out;
}

/**
 * Adds a glob from `from`, ending with a SEP into `to`. Every edge carries `guard`: a word is read whole at one
 * position, so the guard holds on all of its edges.
 * @param noSlash whether no character may be `/` (a name's basename, or an allowed name without a path)
 */
function addGlob(
  m: Machine,
  from: number,
  glob: readonly (number | null)[],
  to: number,
  guard: 'name' | 'arg',
  noSlash: boolean,
): void {
  let cur = from;
  const star = noSlash ? anyChar([SLASH]) : anyChar();
  for (const t of glob) {
    if (t === null) {
      // A `*` loops on a state of its own, entered without reading.
      const loop = m.state();
      m.epsilon(cur, loop);
      m.edge(loop, star, loop, guard);
      cur = loop;
      continue;
    }
    if (noSlash && t === SLASH) return;
    const next = m.state();
    m.edge(cur, chars(t), next, guard);
    cur = next;
  }
  m.edge(cur, SEP_LABEL, to, guard);
}

/**
 * The automaton of one command pattern.
 * @param words the pattern's words (`**` for any words)
 * @param forAllow how names and unknown words match (see the module header)
 */
function patternMachine(words: readonly string[], forAllow: boolean): Machine {
  const m = new Machine();
  let cur = 0;
  words.forEach((text, k) => {
    if (text === '**') {
      // Any number of words, each known (or, for deny and ask, unknown too), then on from the same state.
      const inWord = m.state();
      m.edge(cur, anyChar(), inWord);
      m.edge(inWord, anyChar(), inWord);
      m.edge(inWord, SEP_LABEL, cur);
      m.edge(cur, SEP_LABEL, cur);
      if (!forAllow) {
        const top = m.state();
        m.edge(cur, TOP_LABEL, top);
        m.edge(top, SEP_LABEL, cur);
        // A trailing `**` of a deny or ask pattern takes every rest: the answer is settled.
        if (k === words.length - 1) for (const s of [cur, inWord, top]) m.universal(s);
      }
      return;
    }
    const next = m.state();
    const glob = globOf(text);
    // After the name.
    addGlob(m, cur, glob, next, 'arg', false);
    if (!forAllow) {
      const top = m.state();
      m.edge(cur, TOP_LABEL, top);
      m.edge(top, SEP_LABEL, next);
    }
    // The name.
    if (forAllow) {
      addGlob(m, cur, glob, next, 'name', true);
      if (text.includes('/'))
        addGlob(
          m,
          cur,
          [...text].map((c) => c.charCodeAt(0)),
          next,
          'name',
          false,
        );
    } else {
      addGlob(m, cur, glob, next, 'name', false);
      // A path whose basename matches: anything, a `/`, then the glob without `/`.
      const dir = m.state();
      m.edge(cur, anyChar(), dir, 'name');
      m.edge(dir, anyChar(), dir);
      const base = m.state();
      m.edge(cur, chars(SLASH), base, 'name');
      m.edge(dir, chars(SLASH), base);
      addGlob(m, base, glob, next, 'name', true);
      const top = m.state();
      m.edge(cur, TOP_LABEL, top, 'name');
      m.edge(top, SEP_LABEL, next);
    }
    cur = next;
  });
  m.accept(cur);
  return m;
}

/** The automaton of a command name: the first word's basename is `name`, then anything. */
function nameMachine(name: string): Machine {
  const m = new Machine();
  const after = m.state();
  const glob = globOf(name);
  addGlob(m, 0, glob, after, 'name', false);
  const dir = m.state();
  m.edge(0, anyChar(), dir, 'name');
  m.edge(dir, anyChar(), dir);
  const base = m.state();
  m.edge(0, chars(SLASH), base, 'name');
  m.edge(dir, chars(SLASH), base);
  addGlob(m, base, glob, after, 'name', true);
  m.accept(after);
  // The rest of the command, any words.
  m.edge(after, anyChar(), after);
  m.edge(after, SEP_LABEL, after);
  m.edge(after, TOP_LABEL, after);
  return m;
}

/** One pattern of one table, as the pick sees it. */
interface Occurrence {
  readonly table: number;
  readonly index: number;
  readonly decision: Decision;
  readonly specificity: number;
}

/**
 * One automaton in the search, shared by every pattern that reads alike (the same words, allow or not), so two
 * sides that share most of their patterns run each once. It runs twice: on the words as written and split.
 */
interface Runner {
  readonly direct: Machine;
  readonly split: Machine;
  readonly forAllow: boolean;
  /** Whether a deny or ask pattern ends with `**` (so it can settle: see {@link Machine.universal}). */
  readonly settles: boolean;
  /**
   * Whether splitting never changes the answer, so the split run is the direct one: a pattern of plain words
   * none of which (after the name) starts with `-`, perhaps ending with `**`. A split only turns a word that starts
   * with `-` into more such words, which such a word never matches and a trailing `**` takes either way.
   */
  readonly splitSame: boolean;
  readonly occurrences: Occurrence[];
}

/** Whether `a` beats `b` in a table's pick: more specific, then more restrictive, then written first. */
function beats(a: Occurrence, b: Occurrence): boolean {
  if (a.specificity !== b.specificity) return a.specificity > b.specificity;
  if (a.decision !== b.decision) return RESTRICTIVENESS[a.decision] > RESTRICTIVENESS[b.decision];
  return a.index < b.index;
}

/**
 * The classes of simple commands the tables tell apart, with a shortest member of each.
 * @param tables every `commands:` table that can judge the tool's argument, on either side
 * @returns the classes, shortest members first
 */
export function commandClasses(tables: readonly CommandTableInput[]): CommandClasses {
  const runners: Runner[] = [];
  const byWords = new Map<string, Runner>();
  const alphabet = new Set<number>([SLASH, DASH]);
  tables.forEach((table, t) => {
    table.patterns.forEach((p, i) => {
      if (p.command === undefined || p.error !== undefined) return;
      const words = p.command.words.map((w) => (w.kind === 'any' ? '**' : w.text));
      for (const w of words) for (const c of w) if (c !== '*') alphabet.add(c.charCodeAt(0));
      const forAllow = p.decision === 'allow';
      const key = `${forAllow ? 'a' : 'd'} ${words.join(' ')}`;
      let runner = byWords.get(key);
      if (runner === undefined) {
        // One automaton serves both forms: its sets are interned, so the two runs share its memo.
        const machine = patternMachine(words, forAllow);
        runner = {
          direct: machine,
          split: machine,
          forAllow,
          settles: !forAllow && words.at(-1) === '**',
          splitSame: words.every(
            (w, k) =>
              (w === '**' && k === words.length - 1) ||
              (w !== '**' && !w.includes('*') && (k === 0 || !w.startsWith('-'))),
          ),
          occurrences: [],
        };
        byWords.set(key, runner);
        runners.push(runner);
      }
      runner.occurrences.push({ table: t, index: i, decision: p.decision, specificity: p.specificity });
    });
  });
  const names = NAMES.map((n) => nameMachine(n));
  const nameChars = new Set<number>();
  for (const n of NAMES) for (const c of n) nameChars.add(c.charCodeAt(0));
  for (const c of nameChars) alphabet.add(c);
  const other = otherChar(alphabet);
  const always = [SLASH, DASH];
  /**
   * The symbols worth trying from a node: the characters that an edge out of a running automaton names, where
   * the split form reads them (after the characters held back, and after the `-` it puts before each option);
   * any other character is read like `other` by every automaton. Also `/` and `-` (the name's basename and the
   * split read them), the names' characters while reading the name, SEP and TOP.
   */
  const symbolsOf = (node: Node): number[] => {
    const set = new Set<number>(always);
    const mode = node.split.mode;
    node.alive.forEach((i, j) => {
      const m = runners[i]!.direct;
      for (const c of m.outChars(node.direct[j]!)) set.add(c);
      let sp = node.splitSets[j]!;
      for (const h of node.split.held) sp = m.step(sp, h, false);
      for (const c of m.outChars(sp)) set.add(c);
      if (mode === 'held' || mode === 'split') {
        for (const c of m.outChars(m.step(sp, DASH, false))) set.add(c);
        if (node.split.held.length === 2) {
          const after = m.step(m.step(sp, SEP, false), DASH, false);
          for (const c of m.outChars(after)) set.add(c);
        }
      }
    });
    if (node.split.atName) for (const c of nameChars) set.add(c);
    set.delete(other);
    // The character for all others first, so a member reads `git x` rather than `git A`.
    return [other, ...[...set].sort((x, y) => x - y), SEP, TOP];
  };

  /** A product state: the transducer, the runs of the patterns still running (by index), the name runs. */
  interface Node {
    split: Split;
    alive: number[];
    direct: number[];
    splitSets: number[];
    names: number[];
    /** The node this one was reached from, and the symbol read: the member is read back along them. */
    parent: Node | undefined;
    symbol: number;
  }
  // A node's identity, compact: each number as two UTF-16 units (a product of many runs makes many keys).
  const keyOf = (n: Node) => {
    const codes: number[] = [];
    const put = (x: number) => codes.push(x & 0xffff, x >>> 16);
    for (const x of n.names) put(x);
    for (let j = 0; j < n.alive.length; j++) {
      put(n.alive[j]!);
      put(n.direct[j]!);
      put(n.splitSets[j]!);
    }
    return `${splitKey(n.split)}|${String.fromCharCode(...codes)}`;
  };
  const start: Node = {
    split: START,
    alive: runners.map((_, i) => i),
    direct: runners.map((r) => r.direct.start),
    splitSets: runners.map((r) => r.split.start),
    names: names.map((m) => m.start),
    parent: undefined,
    symbol: 0,
  };
  settle(start);
  const found = new Map<string, CommandClass>();
  const { truncated, states } = breadthFirst(start, keyOf, COMMAND_STATE_BUDGET, function* (node) {
    const atBoundary = !node.split.atName && node.split.mode === 'start';
    if (atBoundary) record(node);
    // When no pattern can still match and the name is read, every longer command falls in the same class.
    const alive = node.alive.length > 0;
    if (!alive && !node.split.atName && atBoundary) return;
    for (const symbol of symbolsOf(node)) {
      if (!alive && !node.split.atName && symbol !== SEP) continue;
      // TOP is a whole word: only at a word's start.
      if (symbol === TOP && node.split.mode !== 'start') continue;
      yield advance(node, symbol);
    }
  });
  return { classes: [...found.values()], truncated, states };

  function advance(node: Node, symbol: number): Node {
    const atName = node.split.atName;
    const { next: split, out } = splitStep(node.split, symbol);
    const direct: number[] = [];
    const splitSets: number[] = [];
    node.alive.forEach((i, j) => {
      const r = runners[i]!;
      const d = r.direct.step(node.direct[j]!, symbol, atName);
      direct.push(d);
      if (r.splitSame) {
        splitSets.push(d);
        return;
      }
      let set = node.splitSets[j]!;
      for (const o of out) set = r.split.step(set, o, atName);
      splitSets.push(set);
    });
    const nameSets = node.names.map((s, i) => names[i]!.step(s, symbol, atName));
    const moved: Node = {
      split,
      alive: node.alive,
      direct,
      splitSets,
      names: nameSets,
      parent: node,
      symbol,
    };
    settle(moved);
    return moved;
  }

  /**
   * Merges runs whose answers are settled, so the search does not tell apart commands that no pick can: a
   * pattern that can no longer match stops running (an allow needs both forms); a deny or ask pattern whose
   * trailing `**` has been reached matches whatever follows, so its runs become the canonical settled set, and
   * every pattern of its table it beats can no longer win and stops running.
   */
  function settle(node: Node): void {
    const alive = node.alive;
    let drop: boolean[] | undefined;
    // Patterns that settled at this step: a pattern settled before has already dropped what it beats.
    let definite: (Occurrence | undefined)[] | undefined;
    for (let j = 0; j < alive.length; j++) {
      const r = runners[alive[j]!]!;
      const d = node.direct[j]!;
      const sp = node.splitSets[j]!;
      const dead = r.forAllow
        ? r.direct.isDead(d) || r.split.isDead(sp)
        : r.direct.isDead(d) && r.split.isDead(sp);
      if (dead) {
        (drop ??= alive.map(() => false))[j] = true;
        continue;
      }
      if (!r.settles) continue;
      const settled = r.direct.settled;
      if (d === settled && sp === settled) continue;
      if (!(r.direct.isUniversal(d) || r.split.isUniversal(sp))) continue;
      node.direct[j] = settled;
      node.splitSets[j] = settled;
      definite ??= tables.map(() => undefined);
      for (const o of r.occurrences) {
        const best = definite[o.table];
        if (best === undefined || beats(o, best)) definite[o.table] = o;
      }
    }
    if (definite !== undefined) {
      const found = definite;
      // An occurrence the settled one beats, or ties with a decision no more restrictive, cannot change its
      // table's decision (which pattern of equal ones wins is for the real pick to say).
      const beaten = (o: Occurrence) => {
        const best = found[o.table];
        if (best === undefined || best === o) return false;
        return (
          o.specificity < best.specificity ||
          (o.specificity === best.specificity &&
            RESTRICTIVENESS[o.decision] <= RESTRICTIVENESS[best.decision])
        );
      };
      for (let j = 0; j < alive.length; j++)
        if (runners[alive[j]!]!.occurrences.every(beaten)) (drop ??= alive.map(() => false))[j] = true;
    }
    if (drop === undefined) return;
    const keep = drop;
    node.alive = alive.filter((_, j) => !keep[j]);
    node.direct = node.direct.filter((_, j) => !keep[j]);
    node.splitSets = node.splitSets.filter((_, j) => !keep[j]);
  }

  function record(node: Node): void {
    const winners = tables.map(() => -1);
    const best: (Occurrence | undefined)[] = tables.map(() => undefined);
    node.alive.forEach((i, j) => {
      const r = runners[i]!;
      const d = r.direct.accepting(node.direct[j]!);
      const s = r.split.accepting(node.splitSets[j]!);
      if (!(r.forAllow ? d && s : d || s)) return;
      for (const o of r.occurrences) {
        const b = best[o.table];
        if (b === undefined || beats(o, b)) {
          best[o.table] = o;
          winners[o.table] = o.index;
        }
      }
    });
    const nameHits = node.names.map((s, i) => names[i]!.accepting(s));
    // A class is what the tables decide (the winning decision, or none), not which of equal patterns wins.
    const decided = winners.map((w, t) => (w < 0 ? '-' : tables[t]!.patterns[w]!.decision));
    const key = `${decided.join(',')}|${nameHits.map((h) => (h ? 1 : 0)).join('')}`;
    if (found.has(key)) return;
    const path: number[] = [];
    for (let n: Node | undefined = node; n?.parent !== undefined; n = n.parent) path.push(n.symbol);
    found.set(key, member(path.reverse(), winners, nameHits[0]!, tables));
  }
}

/** The words of an encoded command. */
function decode(path: readonly number[]): (string | null)[] {
  const words: (string | null)[] = [];
  let word = '';
  let top = false;
  for (const s of path) {
    if (s === SEP) {
      words.push(top ? null : word);
      word = '';
      top = false;
    } else if (s === TOP) top = true;
    else word += String.fromCharCode(s);
  }
  return words;
}

const PLAIN = /^[A-Za-z0-9_./:,+%@^-]+$/;
/** Words bash reads as syntax at a command's start, so a name spelt like one is quoted. */
const RESERVED = new Set(
  'if then else elif fi case esac for select while until do done in function time coproc'.split(' '),
);

/**
 * A word as a shell reads it back: plain when it is plain, else single-quoted; an unknown word as `$X`.
 * @returns the shell text
 */
export function quoteWord(word: string | null, isName: boolean): string {
  if (word === null) return '$X';
  if (PLAIN.test(word) && !(isName && (word.includes('=') || RESERVED.has(word)))) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The shell words of a member, for the real matcher. */
export function shellWords(words: readonly (string | null)[]): ShellWord[] {
  return words.map((w) =>
    w === null ? { text: '$X', value: '', known: false } : { text: w, value: w, known: true },
  );
}

function member(
  path: readonly number[],
  found: readonly number[],
  git: boolean,
  tables: readonly CommandTableInput[],
): CommandClass {
  let winners = found;
  const words = decode(path);
  const script = words.map((w, i) => quoteWord(w, i === 0)).join(' ');
  const analysis = extractCommands(script);
  const command = analysis.commands[0];
  const unanalysable = words[0] === null;
  let inexact: string | undefined;
  // The real pick: the class is its decisions, so take its winners (a tie between equal patterns is the pick's).
  const real = tables.map((t) => pick(t.patterns, shellWords(words)));
  const decision = (t: number, w: number) => (w < 0 ? undefined : tables[t]!.patterns[w]!.decision);
  if (real.some((w, t) => decision(t, w) !== decision(t, winners[t]!)))
    inexact = `the matcher decides \`${script}\` otherwise`;
  else if (
    analysis.commands.length !== 1 ||
    command === undefined ||
    command.words.length !== words.length ||
    command.words.some((w, i) => (words[i] === null ? w.known : !w.known || w.value !== words[i])) ||
    analysis.unanalysable.length > 0 !== unanalysable
  ) {
    inexact = `\`${script}\` is not one simple command on its own`;
  }
  winners = real;
  const move = command !== undefined && folderMove(command) !== undefined;
  const out: CommandClass = { words, script, winners, git, move, unanalysable };
  return inexact === undefined ? out : { ...out, inexact };
}
