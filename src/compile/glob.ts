/**
 * Tool-name selectors: exact names and minimatch globs (`*`, `?`, `[..]`, `{a,b}`), per the policy language, docs/reference/policy-language.md.
 *
 * Tool names are plain strings, not paths: `*` also matches `/` and `.`, matching is case-sensitive, and there
 * is no negation, comment, extglob or globstar syntax (`**` is `*`). Braces are expanded here, not by minimatch
 * (its expansion is slow and silently gives up), bounded at {@link MAX_COMPILED_ALTERNATIVES}; each alternative is a
 * selector of its own with its own specificity = its count of literal characters. Invalid syntax never throws:
 * it is reported in `error`, and the selector keeps what minimatch would still match (nothing when it cannot).
 * @module
 */
import { Minimatch } from 'minimatch';
import { scanClass, tokenizeGlob } from './glob-syntax.js';

/** Most alternatives one selector may expand into before lint reports it (`too-many-alternatives`). */
export const MAX_BRACE_ALTERNATIVES = 64;
/**
 * Most alternatives the compiler expands. Between the two limits a selector is a lint error but still decides
 * what it names (a dropped rule would fail open); beyond this one the file is refused as hostile input.
 */
export const MAX_COMPILED_ALTERNATIVES = 1024;
/** Longest selector accepted (minimatch throws beyond 64 KiB). */
export const MAX_SELECTOR_LENGTH = 4096;

/** One alternative of a selector after brace expansion. */
export interface SelectorAlternative {
  /** The pattern after brace expansion, as minimatch sees it. */
  pattern: string;
  /** Count of literal characters: `*`, `?` and `[...]` count 0, an escaped character counts 1. */
  specificity: number;
  /** False for a plain name (after unescaping), which is matched by equality with {@link name}. */
  isGlob: boolean;
  /** The exact tool name when `isGlob` is false. */
  name?: string;
  /** The literal text every matching name starts with (the whole name for a plain one); '' when unknown. */
  prefix?: string;
  match(name: string): boolean;
}

/** A parsed selector: its alternatives and, when the syntax is invalid, why. */
export interface ParsedSelector {
  selector: string;
  alternatives: SelectorAlternative[];
  error?: string;
}

const OPTIONS = {
  nobrace: true,
  noext: true,
  nonegate: true,
  nocomment: true,
  noglobstar: true,
  dot: true,
  nocase: false,
  optimizationLevel: 1,
} as const;

const SPECIAL = /[*?[\]{}\\]/;

// minimatch splits on `/`; tool names are not paths. Both sides map `/` to a noncharacter so `*` spans it.
const SLASH = '\uffff';
// A noncharacter prefixed to pattern and name, so no name is ever the special path segment `.` or `..`.
const ANCHOR = '\ufffe';

/**
 * Whether a selector is a plain tool name: no glob syntax, no braces, no escapes, and within the length limit.
 * {@link parseSelector} gives it one exact alternative whose name, pattern and prefix are the selector itself.
 * @returns true for a plain name
 */
export function isPlainSelector(selector: string): boolean {
  return selector.length > 0 && selector.length <= MAX_SELECTOR_LENGTH && !SPECIAL.test(selector);
}

/**
 * The literal prefix of a selector that is that prefix and one trailing `*` (`mcp__server__*`, the common glob), or
 * undefined for any other selector. {@link parseSelector} gives such a selector one glob alternative of that prefix,
 * specificity the prefix's length, matching the non-empty names that start with the prefix.
 * @returns the prefix, or undefined
 */
export function trailingStarPrefix(selector: string): string | undefined {
  const last = selector.length - 1;
  if (last < 0 || selector.length > MAX_SELECTOR_LENGTH || selector.charCodeAt(last) !== 42) return undefined;
  const prefix = selector.slice(0, last);
  return SPECIAL.test(prefix) || SURROGATE.test(prefix) ? undefined : prefix;
}

/** Plain text, one `{...}` group of plain text, plain text; nothing else that glob syntax reads. */
const ONE_PLAIN_GROUP = /^([^*?[\]{}\\,]*)\{([^*?[\]{}\\]*)\}([^*?[\]{}\\,]*)$/;

/**
 * The names of a selector that is plain text around one brace group of plain names (`{read,write}_file`), in
 * written order without repeats: the exact names {@link parseSelector} expands it into, each its own pattern, name
 * and prefix, with its length as specificity. Undefined for any other selector (no group, nesting, escapes, glob
 * characters, an empty or a single alternative, more than {@link MAX_BRACE_ALTERNATIVES}), which `parseSelector`
 * reads. The compiler takes this path first: brace expansion allocates for every step of its general search.
 * @returns the names, or undefined
 */
export function plainBraceNames(selector: string): string[] | undefined {
  if (selector.length > MAX_SELECTOR_LENGTH) return undefined;
  const m = ONE_PLAIN_GROUP.exec(selector);
  if (m === null) return undefined;
  const [, head, group, tail] = m as unknown as [string, string, string, string];
  const parts = group.split(',');
  if (parts.length < 2 || parts.length > MAX_BRACE_ALTERNATIVES) return undefined;
  const names: string[] = [];
  for (const part of parts) {
    if (part.length === 0) return undefined;
    const name = head + part + tail;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Parses one selector as written under `tools:`.
 * @returns its alternatives (possibly empty) and an error message when the syntax is invalid
 */
export function parseSelector(selector: string): ParsedSelector {
  if (selector.length === 0) return { selector, alternatives: [], error: 'empty selector' };
  if (selector.length > MAX_SELECTOR_LENGTH) {
    return {
      selector,
      alternatives: [],
      error: `selector is ${selector.length} characters: the limit is ${MAX_SELECTOR_LENGTH}`,
    };
  }
  if (!SPECIAL.test(selector)) {
    // The common case, a plain tool name: no expansion, no escapes, no matcher to build.
    return {
      selector,
      alternatives: [
        {
          pattern: selector,
          specificity: selector.length,
          isGlob: false,
          name: selector,
          match: (n) => n === selector,
        },
      ],
    };
  }
  const expanded = expandBraces(selector, MAX_COMPILED_ALTERNATIVES);
  if (expanded === undefined) {
    return {
      selector,
      alternatives: [],
      error: `braces expand to more than ${MAX_COMPILED_ALTERNATIVES} alternatives`,
    };
  }
  const error =
    syntaxError(selector) ??
    (expanded.length > MAX_BRACE_ALTERNATIVES
      ? `braces expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives`
      : undefined);
  const alternatives = expanded.map(compileAlternative);
  return error ? { selector, alternatives, error } : { selector, alternatives };
}

function compileAlternative(pattern: string): SelectorAlternative {
  // The common shapes (`mcp__server__*`, plain names out of braces) have no escape, `?` or class: their shape is
  // read off the string, without a token per character.
  const shape = PLAIN_OR_STAR.test(pattern) ? starShape(pattern) : literalShape(pattern);
  const { specificity } = shape;
  if (!shape.magic) {
    // The tokens' text, not minimatch's `unescape`, which keeps `\/` and turns `\[x]` into `x`, unlike its matcher.
    const name = shape.prefix;
    return { pattern, specificity, isGlob: false, name, prefix: name, match: (n) => n === name };
  }
  if (shape.stars !== undefined && !SURROGATE.test(pattern)) {
    // Literals and `*` only: string search, no regular expression to compile (V8 takes tens of µs per pattern,
    // which dominated linting thousands of globs).
    return { pattern, specificity, isGlob: true, prefix: shape.prefix, match: starMatcher(shape.stars) };
  }
  if (!shape.hasClass) {
    // Only `*`, `?` and escapes: a regular expression with minimatch's meaning (checked against minimatch by a
    // property test) matches in nanoseconds, where minimatch 11 takes microseconds to build and to match. Built
    // on first use: lint and the table's prefix index reject most names before any matcher runs.
    let re: RegExp | undefined;
    return {
      pattern,
      specificity,
      isGlob: true,
      prefix: shape.prefix,
      match: (n) => n.length > 0 && (re ??= new RegExp(`^${toRegExpSource(pattern)}$`, 'su')).test(n),
    };
  }
  const { prefix, suffix } = shape;
  const min = prefix.length + suffix.length;
  // Built on first use: minimatch's constructor costs tens of µs, and the literal prefix/suffix test below rejects
  // most names without it (1,000 glob rules stay cheap to compile and to scan).
  let mm: Minimatch | undefined;
  return {
    pattern,
    specificity,
    isGlob: true,
    prefix,
    match: (n) => {
      if (n.length < min || !n.startsWith(prefix) || !n.endsWith(suffix)) return false;
      // ANCHOR in front of both: minimatch never lets a glob match the whole segments `.` and `..` (even with
      // `dot`), but `.` and `..` are plain tool names here, and a `[!a]*: deny` must catch them too.
      mm ??= new Minimatch(ANCHOR + pattern.replaceAll('/', SLASH), OPTIONS);
      return mm.match(ANCHOR + (n.includes('/') ? n.replaceAll('/', SLASH) : n));
    },
  };
}

/** No escape, `?` or `[`: every character but `*` is a literal of its own. */
const PLAIN_OR_STAR = /^[^\\?[]*$/;

interface Shape {
  magic: boolean;
  hasClass: boolean;
  prefix: string;
  suffix: string;
  specificity: number;
  /** For a pattern of literals and `*` only: the literal runs between the stars (first and last may be ''). */
  stars?: string[];
}

/**
 * Whether a brace-free pattern is literals and `*` only (no escape, `?` or `[`).
 * @returns true when every character but `*` stands for itself
 */
export function isStarOnly(pattern: string): boolean {
  return PLAIN_OR_STAR.test(pattern);
}

// A surrogate in the pattern could meet half of a pair in a name, where the regular expression (`u` flag) matches
// whole code points; such patterns keep the regular expression.
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Matches `runs[0] * runs[1] * … * runs[k]` (k ≥ 1 stars) as the regular expression `^r0.*r1.*…rk$` does:
 * the first and last runs anchored, the middle ones found leftmost in order (greedy placement is optimal for `*`).
 */
function starMatcher(runs: readonly string[]): (name: string) => boolean {
  const head = runs[0]!;
  const tail = runs[runs.length - 1]!;
  const middle = runs.slice(1, -1).filter((r) => r.length > 0);
  const min = runs.reduce((sum, r) => sum + r.length, 0);
  return (n) => {
    if (n.length === 0 || n.length < min || !n.startsWith(head) || !n.endsWith(tail)) return false;
    let at = head.length;
    const end = n.length - tail.length;
    for (const run of middle) {
      const found = n.indexOf(run, at);
      if (found === -1 || found + run.length > end) return false;
      at = found + run.length;
    }
    return true;
  };
}

/** {@link literalShape} for a pattern of literals and `*` only. */
function starShape(pattern: string): Shape {
  const first = pattern.indexOf('*');
  if (first === -1) {
    return { magic: false, hasClass: false, prefix: pattern, suffix: '', specificity: pattern.length };
  }
  let stars = 0;
  for (let i = first; i < pattern.length; i++) if (pattern.charCodeAt(i) === 42) stars++;
  const runs = pattern.split('*');
  return {
    magic: true,
    hasClass: false,
    prefix: runs[0]!,
    suffix: runs[runs.length - 1]!,
    specificity: pattern.length - stars,
    stars: runs,
  };
}

/**
 * Whether a brace-free pattern has glob syntax (`*`, `?` or a closed `[...]` class: minimatch's `hasMagic` under
 * our options), and its literal (unescaped) text before the first and after the last glob character.
 */
function literalShape(pattern: string): Shape {
  let prefix = '';
  let suffix = '';
  let magic = false;
  let hasClass = false;
  let specificity = 0;
  for (const token of tokenizeGlob(pattern)) {
    if (token.kind === 'literal') {
      specificity += token.text.length;
      if (magic) suffix += token.text;
      else prefix += token.text;
      continue;
    }
    magic = true;
    suffix = '';
    if (token.kind === 'class') hasClass = true;
  }
  return { magic, hasClass, prefix, suffix, specificity };
}

/** Regular-expression source for a brace- and class-free pattern: `*` any run, `?` any one character. */
function toRegExpSource(pattern: string): string {
  let out = '';
  let literal = '';
  const flush = () => {
    if (literal) out += literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    literal = '';
  };
  for (const token of tokenizeGlob(pattern)) {
    if (token.kind === 'literal') {
      literal += token.text;
      continue;
    }
    flush();
    if (token.kind === 'star') out += '.*';
    else if (token.kind === 'any') out += '.';
  }
  flush();
  return out;
}

/**
 * Counts literal characters of a brace-free pattern.
 * @returns the specificity
 */
export function countLiterals(pattern: string): number {
  let count = 0;
  for (const token of tokenizeGlob(pattern)) if (token.kind === 'literal') count += token.text.length;
  return count;
}

/** Index of the `]` closing the class opened at `open`, or -1 when it is not a class. */
function classEnd(pattern: string, open: number): number {
  return scanClass(pattern, open)?.close ?? -1;
}

/** Syntax problems minimatch would silently read as literals: unclosed classes, unbalanced braces, a final `\`. */
function syntaxError(selector: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '\\') {
      if (i + 1 === selector.length) return 'selector ends with a lone `\\`';
      i++;
    } else if (c === '[') {
      const close = classEnd(selector, i);
      if (close === -1) return `unclosed \`[\` at column ${i + 1}`;
      i = close;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return `unmatched \`}\` at column ${i + 1}`;
      depth--;
    }
  }
  return depth > 0 ? 'unclosed `{`' : undefined;
}

/**
 * Expands `{a,b}` alternatives (nested, escapes and classes respected; `{a}` with no comma stays literal).
 * @param limit most alternatives to produce
 * @returns the alternatives, or undefined when there would be more than `limit`
 */
export function expandBraces(pattern: string, limit = MAX_BRACE_ALTERNATIVES): string[] | undefined {
  // No `{` at all (most selectors): one alternative, the pattern itself.
  if (!pattern.includes('{')) return limit >= 1 ? [pattern] : undefined;
  const out: string[] = [];
  const work = [pattern];
  // INVARIANT: leaves are counted before de-duplication, so `{a,a}` repeated cannot loop for long unnoticed.
  let leaves = 0;
  while (work.length > 0) {
    const p = work.pop()!;
    const group = firstGroup(p);
    if (!group) {
      if (++leaves > limit) return undefined;
      if (!out.includes(p)) out.push(p);
      continue;
    }
    const [start, end, parts] = group;
    const prefix = p.slice(0, start);
    const suffix = p.slice(end + 1);
    // Reversed so the stack pops alternatives in written order.
    for (let k = parts.length - 1; k >= 0; k--) work.push(prefix + parts[k] + suffix);
  }
  return out;
}

/** The first `{...}` with a top-level comma: [open index, close index, parts]. */
function firstGroup(p: string): [number, number, string[]] | undefined {
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const close = classEnd(p, i);
      if (close !== -1) i = close;
      continue;
    }
    if (c !== '{') continue;
    const parts: string[] = [];
    let depth = 0;
    let from = i + 1;
    for (let j = i + 1; j < p.length; j++) {
      const d = p[j];
      if (d === '\\') j++;
      else if (d === '{') depth++;
      else if (d === '}' && depth > 0) depth--;
      else if (d === ',' && depth === 0) {
        parts.push(p.slice(from, j));
        from = j + 1;
      } else if (d === '}') {
        if (parts.length === 0) break; // `{a}`: literal braces, keep looking
        parts.push(p.slice(from, j));
        return [i, j, parts];
      }
    }
  }
  return undefined;
}
