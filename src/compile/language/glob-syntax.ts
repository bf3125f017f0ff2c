/**
 * The one reader of tool-name glob syntax (one brace-free alternative): literals, escapes, `?`, `*` runs and
 * `[...]` classes, read exactly as minimatch's matcher reads them, and the one matcher over those tokens, so that
 * specificity, matching, overlap search and sample names all see one reading of the pattern.
 *
 * minimatch's reading, which this follows: the pattern is scanned by code point; `\` makes the next character
 * literal (a final `\` is itself literal); `[` opens a class only when a `]` closes it, else it is literal; in a
 * class a leading `!` or `^` negates, a `]` right after the opening (or the negation) is a member, `\` escapes,
 * `a-z` is a range (an inverted one is dropped), `a-]` means `a` and `-`, and `[:alpha:]` and the other POSIX
 * names are character sets (any other `[` is a plain member). A class with no members left, or a range that runs
 * into a POSIX name, matches nothing, and then the whole pattern matches nothing.
 * @module
 */

/** One element of a pattern. Consecutive `*` are one `star`. */
export type GlobToken =
  | {
      kind: 'literal';
      /** The character (one code point; two UTF-16 units for astral characters). */
      text: string;
      escaped: boolean;
    }
  | { kind: 'any' }
  | { kind: 'star' }
  | ({ kind: 'class' } & GlobClass);

/** A `[...]` class as read from the pattern. */
export interface GlobClass {
  /** Index (UTF-16) of the `[` and of the `]` that closes it (or of the pattern's last unit, for `empty`). */
  open: number;
  close: number;
  /** Whether one character (one code point) is in the class. */
  test(c: string): boolean;
  /** The first member as written, when the class is not negated and starts with a plain character or range. */
  first?: string;
  /** True when the class matches nothing, which makes the whole pattern match nothing. */
  empty: boolean;
}

// POSIX classes as minimatch translates them: a Unicode set, and whether the class means its complement (`graph`
// and `print`; minimatch joins those to the other members with "or", negated or not, and so does this reader).
// Kept as sources, made into expressions where a class names one: a Unicode-property expression costs ~0.1 ms
// to build, and every process that decides (a hook process before each agent tool call) would build them all.
const POSIX: Readonly<Record<string, readonly [string, boolean]>> = {
  '[:alnum:]': ['[\\p{L}\\p{Nl}\\p{Nd}]', false],
  '[:alpha:]': ['[\\p{L}\\p{Nl}]', false],
  '[:ascii:]': ['[\\x00-\\x7f]', false],
  '[:blank:]': ['[\\p{Zs}\\t]', false],
  '[:cntrl:]': ['\\p{Cc}', false],
  '[:digit:]': ['\\p{Nd}', false],
  '[:graph:]': ['[\\p{Z}\\p{C}]', true],
  '[:lower:]': ['\\p{Ll}', false],
  '[:print:]': ['\\p{C}', true],
  '[:punct:]': ['[\\p{P}\\p{S}]', false],
  '[:space:]': ['[\\p{Z}\\t\\r\\n\\v\\f]', false],
  '[:upper:]': ['\\p{Lu}', false],
  '[:word:]': ['[\\p{L}\\p{Nl}\\p{Nd}\\p{Pc}]', false],
  '[:xdigit:]': ['[A-Fa-f0-9]', false],
};
const POSIX_NAMES = Object.keys(POSIX);

const codePointAt = (s: string, i: number): string => String.fromCodePoint(s.codePointAt(i)!);

/**
 * Reads the class that `[` at `open` starts.
 * @param pattern the pattern
 * @param open index of a `[`
 * @returns the class, or undefined when no `]` closes it (the `[` is then a literal)
 */
export function scanClass(pattern: string, open: number): GlobClass | undefined {
  // No `]` after it: not a class (and a pattern of many `[` stays linear).
  if (pattern.indexOf(']', open + 1) === -1) return undefined;
  // Members, and the sets of the complemented POSIX classes (see POSIX).
  const members: ((c: string) => boolean)[] = [];
  const complements: RegExp[] = [];
  let negate = false;
  let sawStart = false;
  let escaping = false;
  let rangeStart = '';
  let first: string | undefined;
  let poisoned = false;
  let i = open + 1;
  while (i < pattern.length) {
    const c = codePointAt(pattern, i);
    if ((c === '!' || c === '^') && i === open + 1) {
      negate = true;
      i++;
      continue;
    }
    if (c === ']' && sawStart && !escaping) {
      const test = (x: string) =>
        (members.length > 0 && members.some((m) => m(x)) !== negate) ||
        (complements.length > 0 && complements.some((re) => re.test(x)) === negate);
      const empty = poisoned || members.length + complements.length === 0;
      const cls: GlobClass = { open, close: i, test: empty ? () => false : test, empty };
      if (first !== undefined && !negate && !empty) cls.first = first;
      return cls;
    }
    sawStart = true;
    if (c === '\\' && !escaping) {
      escaping = true;
      i++;
      continue;
    }
    if (c === '[' && !escaping && pattern[i + 1] === ':') {
      const name = POSIX_NAMES.find((n) => pattern.startsWith(n, i));
      if (name !== undefined) {
        // minimatch gives up on the whole pattern here (`[a-[:alpha:]]`); the class still ends at its `]`.
        if (rangeStart) poisoned = true;
        rangeStart = '';
        const [source, complement] = POSIX[name]!;
        const re = new RegExp(source, 'u');
        if (complement) complements.push(re);
        else members.push((x) => re.test(x));
        i += name.length;
        continue;
      }
    }
    escaping = false;
    if (rangeStart) {
      const lo = rangeStart;
      if (c.codePointAt(0)! > lo.codePointAt(0)!) members.push((x) => inRange(x, lo, c));
      else if (c === lo) members.push((x) => x === lo);
      rangeStart = '';
      i += c.length;
      continue;
    }
    first ??= c;
    if (pattern.startsWith('-]', i + c.length)) {
      members.push((x) => x === c || x === '-');
      i += c.length + 1;
      continue;
    }
    if (pattern.startsWith('-', i + c.length)) {
      rangeStart = c;
      i += c.length + 1;
      continue;
    }
    members.push((x) => x === c);
    i += c.length;
  }
  // minimatch treats a range running into a POSIX name as matching nothing even with no `]` after it.
  if (poisoned) return { open, close: pattern.length - 1, test: () => false, empty: true };
  return undefined;
}

/** Code-point order (string comparison is UTF-16 order, which differs above the BMP). */
function inRange(x: string, lo: string, hi: string): boolean {
  const cp = x.codePointAt(0)!;
  return [...x].length === 1 && cp >= lo.codePointAt(0)! && cp <= hi.codePointAt(0)!;
}

/**
 * Tokenises one brace-free pattern.
 * @returns the tokens, in order
 */
export function tokenizeGlob(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  let cls: GlobClass | undefined;
  for (let i = 0; i < pattern.length;) {
    const c = codePointAt(pattern, i);
    if (c === '\\') {
      const next = i + 1 < pattern.length ? codePointAt(pattern, i + 1) : undefined;
      tokens.push({ kind: 'literal', text: next ?? c, escaped: next !== undefined });
      i += 1 + (next?.length ?? 0);
    } else if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
      i++;
    } else if (c === '?') {
      tokens.push({ kind: 'any' });
      i++;
    } else if (c === '[' && (cls = scanClass(pattern, i)) !== undefined) {
      tokens.push({ kind: 'class', ...cls });
      i = cls.close + 1;
    } else {
      tokens.push({ kind: 'literal', text: c, escaped: false });
      i += c.length;
    }
  }
  return tokens;
}

/**
 * Whether any name can match the tokens (a class that matches nothing makes the pattern match nothing).
 * @returns false when no name matches
 */
export function canMatch(tokens: readonly GlobToken[]): boolean {
  return !tokens.some((t) => t.kind === 'class' && t.empty);
}

/**
 * The one glob matcher: whether a name matches a pattern's tokens, by code point. `*` matches any run (`/` and `.`
 * included: tool names are not paths), `?` and a class one code point, a literal itself. The empty name matches
 * no glob, as in minimatch, and a class that matches nothing fails every name. Every token but `*` takes exactly
 * one code point, so when the rest does not fit, only the last `*` seen needs to take one more code point and
 * the rest is retried: at most (tokens × code points) steps, no recursion.
 * @param tokens the pattern's tokens ({@link tokenizeGlob})
 * @param name the tool name
 * @returns whether the name matches
 */
export function matchGlob(tokens: readonly GlobToken[], name: string): boolean {
  if (name.length === 0) return false;
  let t = 0;
  let i = 0;
  // Where the last `*` was, and where the part of the name it has taken so far ends.
  let star = -1;
  let starEnd = 0;
  while (i < name.length) {
    const token = tokens[t];
    if (token !== undefined) {
      if (token.kind === 'star') {
        star = t++;
        starEnd = i;
        continue;
      }
      const n = codePointLength(name, i);
      const ok =
        token.kind === 'any' ||
        (token.kind === 'literal'
          ? token.text.length === n && name.startsWith(token.text, i)
          : token.test(name.slice(i, i + n)));
      if (ok) {
        t++;
        i += n;
        continue;
      }
    }
    if (star < 0) return false;
    starEnd += codePointLength(name, starEnd);
    i = starEnd;
    t = star + 1;
  }
  while (t < tokens.length && tokens[t]!.kind === 'star') t++;
  return t === tokens.length;
}

/** The UTF-16 length of the code point at `i`: 2 for a surrogate pair, else 1 (a lone surrogate is one). */
function codePointLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

// Tried in order for a class: readable first, then printable ASCII, then a few letters beyond it.
const CANDIDATES = [
  ...'xyz_0abcdefghijklmnopqrstuvwXYZABCDEFGHIJKLMNOPQRSTUVW123456789-',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  ...'éßøДжλ中',
];

/**
 * One character a class accepts: its first member as written, else the first of a fixed list of candidates,
 * else one of the pattern's own characters.
 * @param pattern the pattern the class is part of
 * @returns the character, or undefined when none of these is in the class
 */
export function sampleChar(cls: GlobClass, pattern: string): string | undefined {
  if (cls.empty) return undefined;
  if (cls.first !== undefined && cls.test(cls.first)) return cls.first;
  return CANDIDATES.find((c) => cls.test(c)) ?? [...pattern].find((c) => cls.test(c));
}

/**
 * A name that matches a brace-free pattern: each `*` or `?` becomes `fill` (a `*` after a `fill` adds nothing),
 * a class one of its characters, an escape its character.
 * @param pattern the pattern
 * @param fill the one character that stands for `*` and `?` (default `x`)
 * @returns the name, or undefined when the pattern matches nothing (or no sample character fits a class)
 */
export function sampleName(pattern: string, fill = 'x'): string | undefined {
  let out = '';
  for (const token of tokenizeGlob(pattern)) {
    if (token.kind === 'literal') out += token.text;
    else if (token.kind === 'any') out += fill;
    else if (token.kind === 'star') {
      if (!out.endsWith(fill)) out += fill;
    } else {
      const c = sampleChar(token, pattern);
      if (c === undefined) return undefined;
      out += c;
    }
  }
  return out.length > 0 ? out : undefined;
}
