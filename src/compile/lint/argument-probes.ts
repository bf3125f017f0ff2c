/**
 * Probe values for argument rules: for each `commands:` or `paths:` pattern, a few commands and paths that match
 * it and a few that just miss it. `matrix`, `diff` and lint decide each probe as a call (tool + arguments), so a
 * change that widens one command or one path shows as that call, the counterexample.
 *
 * Probes are questions, not claims: a probe that does not match the pattern it was made from is still decided on
 * both sides, so the quality of the guesses affects only what is found, never whether a finding is true.
 *
 * Commands, from a pattern's words (`*` inside a word, a `**` word):
 * - matching: `**` as one word and as no word, `*` as `x`, and a wildcard word filled with the literal words other
 *   patterns of the same tool put at that position (so `git *` beside `git push **` is asked about `git push`);
 * - just missing: the last literal word with a letter appended (`git logx`), one word fewer, one word more for a
 *   pattern without `**`, and the matching command chained to another (`git log; rm x`).
 *
 * Paths, from each brace alternative: `**` as one segment, two segments and none, `*` and `?` as a letter; then
 * the first segment with a letter appended (`srcx/a`), the sample under another folder (`x/src/a`), the sample
 * climbing out and back (`src/../x`), outside the workspace (`../src/a`, `/src/a`), in upper case, and the folder
 * the pattern lies under (`src`).
 * @module
 */
import { expandBraces } from '../language/glob.js';
import { sampleName } from '../language/glob-syntax.js';
import type { SourceDocument } from '../types.js';

/** Most probes made from one pattern. */
export const MAX_PROBES_PER_PATTERN = 16;

/** One argument table as written in a document: what the probes need. */
export interface WrittenTable {
  readonly kind: 'commands' | 'paths';
  readonly argument: string;
  readonly patterns: readonly string[];
}

/** The argument tables of one `tools` rule, with its selector. */
export interface WrittenArgumentRule {
  readonly selector: string;
  readonly tables: readonly WrittenTable[];
}

/**
 * The rules with `commands:` or `paths:` of some documents, as written.
 * @param documents the documents, in any order
 * @returns one entry per rule that has argument patterns
 */
export function writtenArgumentRules(documents: readonly SourceDocument[]): WrittenArgumentRule[] {
  const out: WrittenArgumentRule[] = [];
  for (const { document } of documents) {
    for (const [selector, value] of Object.entries(document.tools ?? {})) {
      if (typeof value === 'string') continue;
      const tables: WrittenTable[] = [];
      for (const kind of ['commands', 'paths'] as const) {
        const map = value[kind];
        if (map === undefined) continue;
        const argument = value.argument ?? (kind === 'commands' ? 'command' : 'path');
        tables.push({ kind, argument, patterns: Object.keys(map) });
      }
      if (tables.length > 0) out.push({ selector, tables });
    }
  }
  return out;
}

/** The words of a command pattern, as the matcher splits them. */
function wordsOf(pattern: string): string[] {
  return pattern.split(/[ \t]+/).filter((w) => w !== '');
}

const isWild = (word: string): boolean => word.includes('*');

/**
 * Commands that match a command pattern and commands that just miss it.
 * @param pattern the pattern as written
 * @param siblings the other patterns of the same tool, whose literal words fill this one's wildcards
 * @returns distinct commands, matching ones first, at most {@link MAX_PROBES_PER_PATTERN}
 */
export function commandProbes(pattern: string, siblings: readonly string[] = []): string[] {
  const words = wordsOf(pattern);
  if (words.length === 0) return [];
  const out = new Set<string>();
  const add = (ws: readonly string[]) => {
    const text = ws.filter((w) => w !== '').join(' ');
    if (text !== '' && out.size < MAX_PROBES_PER_PATTERN) out.add(text);
  };
  const fill = (word: string, by: string) => (word === '**' ? by : word.replace(/\*+/g, by));
  const none = words.map((w) => (w === '**' ? '' : fill(w, 'x')));
  add(words.map((w) => fill(w, 'x')));
  add(none);
  // Fill each wildcard position with the literal words other patterns put there.
  const others = siblings.map(wordsOf);
  words.forEach((w, i) => {
    if (!isWild(w)) return;
    for (const other of others) {
      const literal = other[i];
      if (literal === undefined || isWild(literal)) continue;
      const candidate = w === '**' || new RegExp(`^${w.split(/\*+/).map(escape).join('.*')}$`).test(literal);
      if (candidate) add([...none.slice(0, i), literal, ...none.slice(i + 1)]);
    }
  });
  // Just missing.
  const lastLiteral = words.findLastIndex((w) => !isWild(w));
  if (lastLiteral >= 0) add(none.map((w, i) => (i === lastLiteral ? `${w}x` : w)));
  const present = none.filter((w) => w !== '');
  if (present.length > 1) add(present.slice(0, -1));
  if (!words.includes('**')) add([...none, 'x']);
  add([...none, ';', 'rm', 'x']);
  return [...out];
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Paths that match a path pattern and paths that just miss it.
 * @param pattern the pattern as written
 * @returns distinct paths, matching ones first, at most {@link MAX_PROBES_PER_PATTERN} per brace alternative
 */
export function pathProbes(pattern: string): string[] {
  const out = new Set<string>();
  for (const alternative of expandBraces(pattern) ?? []) {
    const found = new Set<string>();
    const add = (p: string | undefined) => {
      if (p !== undefined && p !== '' && found.size < MAX_PROBES_PER_PATTERN) found.add(p);
    };
    const absolute = alternative.startsWith('/');
    const glob = alternative.replace(/^(\.\/)+/, '');
    const one = sampleName(glob.replace(/\*\*/g, 'a'), 'x');
    const two = sampleName(glob.replace(/\*\*/g, 'a/b'), 'x');
    const zero = sampleName(glob.replace(/(^|\/)\*\*\//g, '$1').replace(/\/\*\*$/, ''), 'x');
    add(one);
    add(two);
    add(zero);
    if (one !== undefined) {
      const segments = one.split('/');
      const first = absolute ? 1 : 0;
      if (segments.length > first + 1) {
        const widened = [...segments];
        widened[first] = `${widened[first]}x`;
        add(widened.join('/'));
        add(segments.slice(0, -1).join('/'));
        add(`${segments.slice(0, -1).join('/')}/../x`);
      }
      if (!absolute) {
        add(`x/${one}`);
        add(`../${one}`);
        add(`/${one}`);
      } else add(`/x${one}`);
      add(one.toUpperCase());
      add(`${one}x`);
    }
    for (const p of found) out.add(p);
  }
  return [...out];
}

/** One probe call's arguments, and the label it is shown with (`command="git push"`). */
export interface ArgumentProbe {
  readonly arguments: Readonly<Record<string, string>>;
  readonly label: string;
}

/**
 * The probes for a tool name: every argument table of every rule whose selector matches it, each pattern's probes.
 * @param rules the written rules (of every side compared)
 * @param matches whether a rule's selector matches the tool
 * @returns distinct probes, in rule and pattern order
 */
export function argumentProbes(
  rules: readonly WrittenArgumentRule[],
  matches: (selector: string) => boolean,
): ArgumentProbe[] {
  const tables = rules.filter((r) => matches(r.selector)).flatMap((r) => r.tables);
  const siblings = new Map<string, string[]>();
  for (const t of tables) {
    if (t.kind !== 'commands') continue;
    const list = siblings.get(t.argument) ?? [];
    list.push(...t.patterns);
    siblings.set(t.argument, list);
  }
  const seen = new Set<string>();
  const out: ArgumentProbe[] = [];
  for (const table of tables) {
    for (const pattern of table.patterns) {
      const values =
        table.kind === 'commands'
          ? commandProbes(pattern, siblings.get(table.argument) ?? [])
          : pathProbes(pattern);
      for (const value of values) {
        const key = `${table.argument}\u0000${value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({
          arguments: { [table.argument]: value },
          label: `${table.argument}=${JSON.stringify(value)}`,
        });
      }
    }
  }
  return out;
}

/**
 * The rules of NEW and OLD for probing a change: first the patterns NEW has and OLD does not (a widening is
 * usually their doing, so its first counterexample comes from them), then NEW's, then OLD's.
 * @returns the rules in that order (probes are deduplicated later)
 */
export function changedFirst(
  now: readonly WrittenArgumentRule[],
  before: readonly WrittenArgumentRule[],
): WrittenArgumentRule[] {
  const old = new Set(
    before.flatMap((r) => r.tables.flatMap((t) => t.patterns.map((p) => key(r.selector, t, p)))),
  );
  const novel = now
    .map((r) => ({
      selector: r.selector,
      tables: r.tables
        .map((t) => ({ ...t, patterns: t.patterns.filter((p) => !old.has(key(r.selector, t, p))) }))
        .filter((t) => t.patterns.length > 0),
    }))
    .filter((r) => r.tables.length > 0);
  return [...novel, ...now, ...before];
}

function key(selector: string, table: WrittenTable, pattern: string): string {
  return JSON.stringify([selector, table.kind, table.argument, pattern]);
}
