/**
 * A getopt_long-style reader for a wrapper's own options, so the command it wraps is found exactly. Like the
 * wrappers it models (they all stop at their first operand), it stops at the first word that is not an option,
 * or after `--`. It fails, never guesses: an unknown option, a missing option argument, or an option word whose
 * value is not known (it could be anything, `-c` included).
 */
import type { ShellWord } from './types.js';

/** How an option takes its argument. */
export type ArgKind = 'none' | 'required' | 'optional';

/** One wrapper's options, from its documentation. */
export interface OptionSpec {
  /** Short options: letter → how it takes an argument (`optional` = only attached, as `-i{}` of xargs). */
  readonly short: Readonly<Record<string, ArgKind>>;
  /** Long options without the dashes (no abbreviations: an abbreviation is unknown, so it fails closed). */
  readonly long: Readonly<Record<string, ArgKind>>;
  /** `nice -5`: a dash and digits is an option of its own. */
  readonly numeric?: boolean;
}

/** The options read, and where the operands start. */
export interface ParsedOptions {
  /** Options in order, as their short letter or long name, with the argument when there is one. */
  readonly options: Readonly<{ name: string; value?: string }[]>;
  /** Index of the first operand (words.length when there is none). */
  readonly next: number;
}

/** A reason the options could not be read, and the index of the word at fault. */
export interface OptionError {
  /** `expansion` for a word whose value is not known, `wrapper` for an option this reader does not know. */
  readonly kind: 'expansion' | 'wrapper';
  readonly message: string;
  readonly at: number;
}

/**
 * Reads options from `words[from]` on.
 * @param words the command's words, the name first
 * @param from the first word to read
 * @param spec the wrapper's options
 * @param program the wrapper's name, for messages
 * @returns the options and the first operand's index, or why they could not be read
 */
export function readOptions(
  words: readonly ShellWord[],
  from: number,
  spec: OptionSpec,
  program: string,
): ParsedOptions | OptionError {
  const options: { name: string; value?: string }[] = [];
  let i = from;
  while (i < words.length) {
    const word = words[i]!;
    if (!word.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${program}\` with an expansion: \`${word.text}\``,
        at: i,
      };
    const v = word.value;
    if (v === '--') return { options, next: i + 1 };
    if (!v.startsWith('-') || v === '-') return { options, next: i };
    if (spec.numeric && /^-\d+$/.test(v)) {
      options.push({ name: 'adjustment', value: v.slice(1) });
      i++;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq < 0 ? v.slice(2) : v.slice(2, eq);
      const kind = Object.hasOwn(spec.long, name) ? spec.long[name] : undefined;
      if (kind === undefined)
        return {
          kind: 'wrapper',
          message: `an option of \`${program}\` this analyser does not know: \`${v}\``,
          at: i,
        };
      if (eq >= 0) {
        if (kind === 'none')
          return { kind: 'wrapper', message: `\`${program}\` option \`--${name}\` takes no value`, at: i };
        options.push({ name, value: v.slice(eq + 1) });
        i++;
      } else if (kind === 'required') {
        const arg = words[i + 1];
        if (arg === undefined)
          return { kind: 'wrapper', message: `\`${program}\` option \`--${name}\` needs a value`, at: i };
        if (!arg.known)
          return {
            kind: 'expansion',
            message: `an argument of \`${program}\` with an expansion: \`${arg.text}\``,
            at: i + 1,
          };
        options.push({ name, value: arg.value });
        i += 2;
      } else {
        options.push({ name });
        i++;
      }
      continue;
    }
    // A cluster of short options: `-0r`, `-sKILL`, `-n5`.
    let j = 1;
    let consumedNext = false;
    while (j < v.length) {
      const letter = v[j]!;
      const kind = Object.hasOwn(spec.short, letter) ? spec.short[letter] : undefined;
      if (kind === undefined)
        return {
          kind: 'wrapper',
          message: `an option of \`${program}\` this analyser does not know: \`-${letter}\``,
          at: i,
        };
      if (kind === 'none') {
        options.push({ name: letter });
        j++;
        continue;
      }
      const rest = v.slice(j + 1);
      if (rest !== '' || kind === 'optional') {
        options.push(rest === '' ? { name: letter } : { name: letter, value: rest });
      } else {
        const arg = words[i + 1];
        if (arg === undefined)
          return { kind: 'wrapper', message: `\`${program}\` option \`-${letter}\` needs a value`, at: i };
        if (!arg.known)
          return {
            kind: 'expansion',
            message: `an argument of \`${program}\` with an expansion: \`${arg.text}\``,
            at: i + 1,
          };
        options.push({ name: letter, value: arg.value });
        consumedNext = true;
      }
      break;
    }
    i += consumedNext ? 2 : 1;
  }
  return { options, next: i };
}

/**
 * Splits bundled short options into one word each, so a matcher sees every option: `sort -uo out` becomes
 * `sort -u -o out`. A known word is split when it is a dash and two or more characters and does not start with
 * `--`: every character becomes an option of its own, so an attached value splits too (`-ofile` → `-o -f -i -l
 * -e`, `-uo=x` → `-u -o -= -x`), which can only add options, never hide one. Words after `--` are split as well:
 * whether a `--` ends the options depends on whether it is the value of the option before it (`sort
 * --random-source -- -uo=x` writes `=x`), which only the program knows. The name, long options, `-`, `--` and
 * unknown words are left alone.
 * @param words the command's words, the name first
 * @returns the words with bundles split (the same array when there is none)
 */
export function splitShortOptions(words: readonly ShellWord[]): readonly ShellWord[] {
  let out: ShellWord[] | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    // 45 is `-` (char codes: indexing a string makes a string of each character).
    if (i > 0 && w.known && v.length > 2 && v.charCodeAt(0) === 45 && v.charCodeAt(1) !== 45) {
      // The first bundle: copy the words before it, then split from here on.
      out ??= words.slice(0, i);
      for (const letter of v.slice(1)) out.push({ text: `-${letter}`, value: `-${letter}`, known: true });
    } else out?.push(w);
  }
  // Nothing to split: the words themselves (a bundle always adds a word, so callers compare lengths).
  return out ?? words;
}
