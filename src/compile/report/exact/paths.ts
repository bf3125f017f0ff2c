/**
 * The classes of paths that a set of `paths:` tables tells apart, each with its shortest member.
 *
 * A path is judged by its lexical form (`lexicalPathResolver`: no filesystem, so the target is the path as
 * written). Every such form is a normalised absolute path: one inside the workspace is the virtual root followed
 * by its workspace-relative text, one outside is any other. So the search reads normalised absolute paths (no
 * empty, `.` or `..` segment, no trailing `/`); the workspace root itself (`.`) is asked on its own.
 *
 * Each brace alternative of a pattern is an automaton over the path's characters, read as minimatch reads it
 * with `dot: true`: segments split at `/`, `**` as a whole segment any number of segments (at least one when it
 * ends the pattern), `*` any run within a segment, `?` one character, classes as `glob-syntax.ts` reads them. A
 * relative alternative reads the virtual root first. Deny and ask patterns match case-insensitively: a literal
 * also accepts its case variants (every character of the Basic Multilingual Plane whose lower or upper case is
 * that of the literal), and a class a character whose lower or upper case it holds. The alphabet is those
 * characters, `/`, `.`, one per way the classes split the rest, and one for all others.
 *
 * Every member is checked against the real matcher (`compilePathPattern`, `pickPathPattern`); a class whose
 * member it decides otherwise is marked.
 * @module
 */
import { countLiterals, expandBraces, MAX_COMPILED_ALTERNATIVES } from '../../language/glob.js';
import { tokenizeGlob, type GlobToken } from '../../language/glob-syntax.js';
import {
  compilePathPattern,
  lexicalPathResolver,
  normalizePathPattern,
  pickPathPattern,
} from '../../decide/paths.js';
import { RESTRICTIVENESS } from '../../decide/restrictiveness.js';
import { anyChar, breadthFirst, Machine, otherChar, type Label } from './machine.js';
import type { Decision } from '../../types.js';

/** One `paths:` table as the search needs it: its patterns as written, with their decisions. */
export interface PathTableInput {
  readonly patterns: readonly { readonly source: string; readonly decision: Decision }[];
}

/** One class of paths. */
export interface PathClass {
  /** The member as a call would write it: workspace-relative inside, absolute outside. */
  readonly path: string;
  /** Per table, the index of the winning pattern, or -1. */
  readonly winners: readonly number[];
  readonly inexact?: string;
}

export interface PathClasses {
  readonly classes: readonly PathClass[];
  readonly truncated: boolean;
}

/** Product states visited at most. */
export const PATH_STATE_BUDGET = 200_000;

const SLASH = 47;
const DOT = 46;
/** The virtual workspace root of `lexicalPathResolver()` (a root no real path lies under). */
const ROOT = lexicalPathResolver()('.')!.written.absolute;

const lower = (c: number): string => String.fromCharCode(c).toLowerCase();
const upper = (c: number): string => String.fromCharCode(c).toUpperCase();

/** Case variants of each character: the BMP characters whose lower or upper case is the same. */
function caseVariants(literals: ReadonlySet<number>): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>();
  for (const c of literals) out.set(c, new Set([c]));
  if (literals.size === 0) return out;
  const byLower = new Map<string, number[]>();
  const byUpper = new Map<string, number[]>();
  for (const c of literals) {
    (byLower.get(lower(c)) ?? byLower.set(lower(c), []).get(lower(c))!).push(c);
    (byUpper.get(upper(c)) ?? byUpper.set(upper(c), []).get(upper(c))!).push(c);
  }
  for (let z = 0; z < 0x10000; z++) {
    if (z >= 0xd800 && z <= 0xdfff) continue;
    for (const c of [...(byLower.get(lower(z)) ?? []), ...(byUpper.get(upper(z)) ?? [])]) out.get(c)!.add(z);
  }
  return out;
}

interface Alternative {
  readonly table: number;
  readonly pattern: number;
  readonly specificity: number;
  readonly decision: Decision;
  readonly machine: Machine;
}

function alternativeMachine(
  segments: readonly (GlobToken[] | 'globstar')[],
  absolute: boolean,
  insensitive: boolean,
  variants: ReadonlyMap<number, ReadonlySet<number>>,
): Machine {
  const m = new Machine();
  const lit = (c: number): Label => ({
    kind: 'char',
    chars: insensitive ? (variants.get(c) ?? new Set([c])) : new Set([c]),
  });
  const slash: Label = { kind: 'char', chars: new Set([SLASH]) };
  const segChar = anyChar([SLASH]);
  let cur = 0;
  const read = (label: Label) => {
    const next = m.state();
    m.edge(cur, label, next);
    cur = next;
  };
  // A relative pattern is matched under the virtual root; both kinds then start after a `/`.
  // The root is no part of the pattern: it is read as it is, whatever the pattern's case.
  if (!absolute) for (const ch of ROOT) read({ kind: 'char', chars: new Set([ch.charCodeAt(0)]) });
  read(slash);
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === 'globstar') {
      // Whole segments, each with the `/` after it, then on from here; at the end, at least one and no `/`.
      const start = cur;
      const inSeg = m.state();
      m.edge(start, segChar, inSeg);
      m.edge(inSeg, segChar, inSeg);
      m.edge(inSeg, slash, start);
      if (last) m.accept(inSeg);
      return;
    }
    for (const t of seg) {
      if (t.kind === 'star') {
        const loop = m.state();
        m.epsilon(cur, loop);
        m.edge(loop, segChar, loop);
        cur = loop;
        continue;
      }
      if (t.kind === 'any') read(segChar);
      else if (t.kind === 'literal') read(lit(t.text.codePointAt(0)!));
      else {
        const test = t.test;
        read({
          kind: 'pred',
          test: (c) => {
            if (c === SLASH) return false;
            const ch = String.fromCodePoint(c);
            return test(ch) || (insensitive && (test(ch.toLowerCase()) || test(ch.toUpperCase())));
          },
        });
      }
    }
    if (last) m.accept(cur);
    else read(slash);
  });
  return m;
}

/** Where the normal-form check is: the length of the current segment (capped at 3) and whether it is all dots. */
interface Form {
  readonly started: boolean;
  readonly length: number;
  readonly dots: boolean;
}

/** One character through the normal-form check, or undefined when the path would not be normalised. */
function formStep(form: Form, c: number): Form | undefined {
  if (!form.started) return c === SLASH ? { started: true, length: 0, dots: true } : undefined;
  if (c === SLASH) {
    if (form.length === 0 || (form.dots && form.length <= 2)) return undefined;
    return { started: true, length: 0, dots: true };
  }
  return { started: true, length: Math.min(form.length + 1, 3), dots: form.dots && c === DOT };
}

const formEnds = (f: Form): boolean => f.started && f.length > 0 && !(f.dots && f.length <= 2);

/**
 * The classes of paths the tables tell apart, with a shortest member of each; the workspace root `.` is one
 * more member, asked on its own.
 * @param tables every `paths:` table that can judge the tool's argument, on either side
 * @returns the classes
 */
export function pathClasses(tables: readonly PathTableInput[]): PathClasses {
  const literals = new Set<number>([SLASH, DOT]);
  const classes: (GlobToken & { kind: 'class' })[] = [];
  const parsed = tables.map((table) =>
    table.patterns.map((p) => {
      const alternatives = expandBraces(p.source, MAX_COMPILED_ALTERNATIVES) ?? [];
      return alternatives.map((raw) => {
        const { absolute, pattern: text } = normalizePathPattern(raw);
        const parts = text.split('/');
        if (absolute) parts.shift();
        const segments = parts.map((seg): GlobToken[] | 'globstar' => {
          if (seg === '**') return 'globstar';
          const tokens = tokenizeGlob(seg);
          for (const t of tokens) {
            if (t.kind === 'literal') literals.add(t.text.codePointAt(0)!);
            if (t.kind === 'class') classes.push(t);
          }
          return tokens;
        });
        return { absolute, segments, specificity: countLiterals(text) };
      });
    }),
  );
  const variants = caseVariants(literals);
  const alphabet = new Set<number>();
  for (const set of variants.values()) for (const c of set) alphabet.add(c);
  for (const ch of ROOT) alphabet.add(ch.charCodeAt(0));
  if (classes.length > 0) {
    const seen = new Set<string>();
    for (let c = 0x21; c < 0x10000; c++) {
      if (alphabet.has(c) || c === SLASH || (c >= 0xd800 && c <= 0xdfff)) continue;
      const ch = String.fromCharCode(c);
      const sig = classes
        .map((k) => `${k.test(ch) ? 1 : 0}${k.test(ch.toLowerCase()) || k.test(ch.toUpperCase()) ? 1 : 0}`)
        .join('');
      if (seen.has(sig)) continue;
      seen.add(sig);
      alphabet.add(c);
    }
  }
  // The character for all others first, so a member reads `src/x` rather than `src/A`.
  const other = otherChar(alphabet);
  // Then the characters the patterns write, then their case variants and the rest: `.envx`, not `.ENVx`.
  const written = [...literals].sort((a, b) => a - b);
  const rest = [...alphabet].filter((c) => !literals.has(c)).sort((a, b) => a - b);
  const symbols = [other, ...written, ...rest];
  const alternatives: Alternative[] = [];
  parsed.forEach((patterns, t) =>
    patterns.forEach((alts, p) => {
      const decision = tables[t]!.patterns[p]!.decision;
      for (const alt of alts) {
        alternatives.push({
          table: t,
          pattern: p,
          specificity: alt.specificity,
          decision,
          machine: alternativeMachine(alt.segments, alt.absolute, decision !== 'allow', variants),
        });
      }
    }),
  );
  const real = tables.map((table) =>
    table.patterns.map((p) => ({ pattern: compilePathPattern(p.source), decision: p.decision })),
  );
  const resolve = lexicalPathResolver();
  const found = new Map<string, PathClass>();
  const add = (path: string, winners: number[] | undefined) => {
    const form = resolve(path)!.written;
    const actual = real.map((candidates) => pickPathPattern(candidates, form));
    const key = (winners ?? actual).join(',');
    if (found.has(key)) return;
    const out: PathClass = { path, winners: winners ?? actual };
    found.set(
      key,
      winners === undefined || actual.every((w, i) => w === winners[i])
        ? out
        : { ...out, inexact: `the path matcher decides \`${path}\` otherwise` },
    );
  };
  add('.', undefined);
  interface Node {
    form: Form;
    sets: number[];
    text: string;
  }
  const keyOf = (n: Node) =>
    `${n.form.started ? 1 : 0}${n.form.length}${n.form.dots ? 1 : 0}|${n.sets.join(',')}`;
  const start: Node = {
    form: { started: false, length: 0, dots: true },
    sets: alternatives.map((a) => a.machine.start),
    text: '',
  };
  const { truncated } = breadthFirst(start, keyOf, PATH_STATE_BUDGET, function* (node) {
    if (formEnds(node.form)) add(display(node.text), winnersOf(node.sets));
    for (const c of symbols) {
      const form = formStep(node.form, c);
      if (form === undefined) continue;
      yield {
        form,
        sets: node.sets.map((s, i) => alternatives[i]!.machine.step(s, c, false)),
        text: node.text + String.fromCharCode(c),
      };
    }
  });
  return { classes: [...found.values()], truncated };

  function winnersOf(sets: readonly number[]): number[] {
    // Per pattern, the most specific alternative that matches; then the table's pick.
    const spec = tables.map((t) => t.patterns.map(() => -1));
    alternatives.forEach((a, i) => {
      if (a.machine.accepting(sets[i]!))
        spec[a.table]![a.pattern] = Math.max(spec[a.table]![a.pattern]!, a.specificity);
    });
    return tables.map((t, ti) => {
      let best = -1;
      t.patterns.forEach((p, pi) => {
        const s = spec[ti]![pi]!;
        if (s < 0) return;
        if (best < 0) return void (best = pi);
        const bs = spec[ti]![best]!;
        if (s > bs || (s === bs && RESTRICTIVENESS[p.decision] > RESTRICTIVENESS[t.patterns[best]!.decision]))
          best = pi;
      });
      return best;
    });
  }
}

/** A path as a call writes it: workspace-relative inside the virtual root, absolute outside. */
function display(absolute: string): string {
  return absolute.startsWith(`${ROOT}/`) ? absolute.slice(ROOT.length + 1) : absolute;
}
