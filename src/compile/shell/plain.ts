/**
 * Plain scripts: a script made only of plain words (see `PLAIN_CHARS` in `words.ts`, globs `*` and `?` included)
 * separated by blanks, joined by `|`, `&&`, `||`, `;` and newlines. Such a script has no quoting, expansion,
 * redirection, comment, assignment prefix or compound command, so its simple commands are its runs of words, and
 * the analyser reads them without the parser (most commands an agent runs are like this).
 *
 * Contract: {@link scanPlainScript} accepts a script only when it is certain of the parser's reading; anything it
 * is not certain of (any other character, a lone `&`, `|&`, `;;`, an operator with no command on either side, a
 * reserved word or `time` where a command starts, a first word with `=`) returns undefined, and the analyser
 * parses the script as before. The property tests hold the two readings equal.
 */

/** `CHARS[c]`: 1 for a character of a plain word (globs included), 2 for a blank, 3 for `|`, `&`, `;`, newline. */
const CHARS = new Uint8Array(128);
const WORD = 1;
const BLANK = 2;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./,:=+%@^-*?')
  CHARS[c.charCodeAt(0)] = WORD;
CHARS[32] = BLANK;
CHARS[9] = BLANK;

const NEWLINE = 10;
const PIPE = 124;
const AMP = 38;
const SEMI = 59;
const EQUALS = 61;

/**
 * Words that are not a simple command's name where a command starts: the shell's reserved words made of plain
 * characters, and `time` (a keyword before a pipeline). `!`, `{`, `}`, `[[`, `]]` have characters that are not
 * plain, so a script with them is never plain.
 */
const RESERVED: readonly string[] = [
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'for',
  'while',
  'until',
  'in',
  'case',
  'esac',
  'function',
  'select',
  'coproc',
  'time',
];

/** Whether `script[start, end)` is one of {@link RESERVED} (compared in place: no slice, no hash). */
function isReserved(script: string, start: number, end: number): boolean {
  const length = end - start;
  for (let k = 0; k < RESERVED.length; k++) {
    const word = RESERVED[k]!;
    if (word.length === length && script.startsWith(word, start)) return true;
  }
  return false;
}

/**
 * The simple commands of a plain script, in source order.
 * @param script the script
 * @returns for each command the offsets of its words (`[pos0, end0, pos1, end1, …]`), and `piped[i]` true when
 * command `i` reads the previous one's output; undefined when the script is not plain (the parser must read it)
 */
export function scanPlainScript(script: string): { commands: number[][]; piped: boolean[] } | undefined {
  const n = script.length;
  const commands: number[][] = [];
  const piped: boolean[] = [];
  // After `|`, `&&`, `||`: a command must come (newlines may come before it). `;` only ever follows a command.
  let needCommand = false;
  let pipedNext = false;
  let i = 0;
  while (i < n) {
    const c = script.charCodeAt(i);
    const kind = c < 128 ? CHARS[c]! : 0;
    if (kind === BLANK) {
      i++;
      continue;
    }
    if (kind === WORD) {
      // A command: words up to an operator, a newline or the end.
      const at: number[] = [];
      while (i < n) {
        const start = i;
        let equals = false;
        for (; i < n; i++) {
          const d = script.charCodeAt(i);
          if (d >= 128 || CHARS[d] !== WORD) break;
          if (d === EQUALS) equals = true;
        }
        if (at.length === 0) {
          // An assignment prefix, or a reserved word: the parser's reading is not a plain command.
          if (equals || isReserved(script, start, i)) return undefined;
        }
        at.push(start, i);
        while (i < n && script.charCodeAt(i) < 128 && CHARS[script.charCodeAt(i)] === BLANK) i++;
        if (i >= n) break;
        const d = script.charCodeAt(i);
        if (d >= 128) return undefined;
        const next = CHARS[d]!;
        if (next !== WORD) break;
      }
      commands.push(at);
      piped.push(pipedNext);
      pipedNext = false;
      needCommand = false;
      // After a command: the end, or an operator.
      if (i >= n) return { commands, piped };
      const d = script.charCodeAt(i);
      if (d === NEWLINE) {
        i++;
      } else if (d === SEMI) {
        // `;;` and `;&` end a case item: the `;` or `&` after this one is refused where a command must start.
        i++;
      } else if (d === PIPE) {
        const e = script.charCodeAt(i + 1);
        if (e === AMP) return undefined;
        if (e === PIPE) i += 2;
        else {
          pipedNext = true;
          i++;
        }
        needCommand = true;
      } else if (d === AMP) {
        // A lone `&` runs in the background, `&>` redirects: only `&&` is plain.
        if (script.charCodeAt(i + 1) !== AMP) return undefined;
        i += 2;
        needCommand = true;
      } else return undefined;
      continue;
    }
    if (c === NEWLINE) {
      // A blank line, or a newline after an operator that still needs its command.
      i++;
      continue;
    }
    // An operator where a command must come, or a character that is not plain.
    return undefined;
  }
  if (needCommand || commands.length === 0) return undefined;
  return { commands, piped };
}
