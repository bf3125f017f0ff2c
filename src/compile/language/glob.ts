/**
 * Tool-name selectors: exact names and minimatch globs (`*`, `?`, `[..]`, `{a,b}`), per the policy language, docs/reference/policy-language.md.
 *
 * Tool names are plain strings, not paths: `*` also matches `/` and `.`, matching is case-sensitive, and there
 * is no negation, comment, extglob or globstar syntax (`**` is `*`). Braces are expanded here, not by minimatch
 * (its expansion is slow and silently gives up), bounded at {@link MAX_COMPILED_ALTERNATIVES}; each alternative is a
 * selector of its own with its own specificity = its count of literal characters, tokenised once by the one reader
 * of the syntax (`glob-syntax.ts`) and matched by those tokens with minimatch's meaning. Invalid syntax never
 * throws: it is reported in `error`, and the selector keeps what minimatch would still match (nothing when it
 * cannot).
 * @module
 */
import { matchGlob, scanClass, tokenizeGlob } from './glob-syntax.js';

/** Most alternatives one selector may expand into before lint reports it (`too-many-alternatives`). */
export const MAX_BRACE_ALTERNATIVES = 64;
/**
 * Most alternatives the compiler expands. Between the two limits a selector is a lint error but still decides
 * what it names (a dropped rule would fail open); beyond this one the file is refused as hostile input.
 */
export const MAX_COMPILED_ALTERNATIVES = 1024;
/** Longest selector accepted: a longer one is an error, so matching and overlap searches stay bounded. */
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

/** One brace-free alternative: tokenised once, matched by those tokens. */
function compileAlternative(pattern: string): SelectorAlternative {
  const tokens = tokenizeGlob(pattern);
  let prefix = '';
  let specificity = 0;
  let magic = false;
  for (const token of tokens) {
    if (token.kind !== 'literal') magic = true;
    else {
      specificity += token.text.length;
      if (!magic) prefix += token.text;
    }
  }
  // The tokens' text, not minimatch's `unescape`, which keeps `\/` and turns `\[x]` into `x`, unlike its matcher.
  if (!magic)
    return { pattern, specificity, isGlob: false, name: prefix, prefix, match: (n) => n === prefix };
  return { pattern, specificity, isGlob: true, prefix, match: (n) => matchGlob(tokens, n) };
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

/**
 * The first `[` of a command or path pattern that opens no class (no `]` closes it): the matchers then read it
 * as a literal `[`, which is almost never what was meant. A command word that is exactly `[` or `[[` (the shell's
 * test commands) is a word, not a class, and is skipped; `\[` is an escaped literal.
 * @param pattern the pattern as written
 * @param kind which table it is in (command words are checked one by one)
 * @returns the 0-based index of the unclosed `[`, or undefined
 */
export function unclosedClass(pattern: string, kind: 'commands' | 'paths'): number | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') {
      if (kind === 'commands') {
        const word = /^\[\[?(?=\s|$)/.exec(pattern.slice(i));
        const atWordStart = i === 0 || /\s/.test(pattern[i - 1]!);
        if (word && atWordStart) {
          i += word[0].length - 1;
          continue;
        }
      }
      const close = classEnd(pattern, i);
      if (close === -1) return i;
      i = close;
    }
  }
  return undefined;
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
