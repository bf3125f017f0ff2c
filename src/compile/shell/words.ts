/**
 * Words: the parser's word parts → a dequoted value and whether that value is known before the script runs, and
 * a walk over the parts that finds nested scripts (`$(…)`, backticks, `<(…)`, `>(…)`) and arithmetic. The
 * parser's `parts` and `script` are lazy getters: they are read explicitly here.
 */
import type * as U from 'unbash';
import type { ShellWord } from './types.js';

/** What the walk reports; the frame is opaque to it. */
export interface PartVisitor {
  visitScript(script: U.Script | undefined, frame: never, pos: number, end: number): void;
  visitArithmetic(text: string, frame: never, pos: number, end: number): void;
  visitUnsupported(text: string, frame: never, pos: number, end: number): void;
  /** An expansion that evaluates a variable's value as code (`${!x}`, `${x@P}`) or assigns one (`${x:=v}`). */
  visitEvaluation(
    kind: 'unsupported' | 'assignment',
    message: string,
    frame: never,
    pos: number,
    end: number,
  ): void;
}

/**
 * An unquoted literal is known unless it has an unescaped `~` that bash may expand: one at the start of the
 * literal (the start of a word; a literal after a quoted part is counted too, which errs safe) or after `=` or `:`
 * (assignment-like words: `x=~`, `a=b:~`). One after any other character is plain text (`HEAD~1`, `a~`).
 */
function literalKnown(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '~' && (i === 0 || text[i - 1] === '=' || text[i - 1] === ':')) return false;
  }
  return true;
}

function partKnown(part: U.WordPart | U.DoubleQuotedChild): boolean {
  switch (part.type) {
    case 'Literal':
      return literalKnown(part.text);
    case 'SingleQuoted':
    case 'AnsiCQuoted':
      return true;
    case 'DoubleQuoted':
      return part.parts.every((p) => p.type === 'Literal');
    default:
      return false;
  }
}

/**
 * The characters that never start a quote, an escape, an expansion, a glob, a brace expansion, `~`, an extended glob,
 * a history expansion or a comment. A word of these alone is its own value, known, with nothing nested in it.
 */
const PLAIN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./,:=+%@^-';
/**
 * `PLAIN[c]` is {@link PLAIN_WORD} for a plain character code below 128, {@link GLOB_WORD} for `*` and `?`, 0 for
 * any other.
 */
const PLAIN = new Uint8Array(128);
for (let i = 0; i < PLAIN_CHARS.length; i++) PLAIN[PLAIN_CHARS.charCodeAt(i)] = 1;
PLAIN['*'.charCodeAt(0)] = 2;
PLAIN['?'.charCodeAt(0)] = 2;

/** {@link wordShape}: a word of {@link PLAIN_CHARS} alone. */
export const PLAIN_WORD = 1;
/** {@link wordShape}: a word of {@link PLAIN_CHARS} and at least one `*` or `?`, a pathname pattern. */
export const GLOB_WORD = 2;

/**
 * The shape of a word's text, read off the text alone (the parser's parts are a re-lex of the word):
 * {@link PLAIN_WORD}: its value is its text, known, nothing nested in it; {@link GLOB_WORD}: its value is its text,
 * not known (bash expands it to file names), nothing nested in it; 0: anything else (read its parts).
 * @returns the shape
 */
export function wordShape(text: string): number {
  const n = text.length;
  if (n === 0) return 0;
  let shape = PLAIN_WORD;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? PLAIN[c]! : 0;
    if (k === 0) return 0;
    shape |= k;
  }
  return shape === PLAIN_WORD ? PLAIN_WORD : GLOB_WORD;
}

/**
 * Dequotes a word and tells whether its value is known.
 * @param word the parser's word
 * @returns the word as written, its value, and whether the value is known
 */
export function toShellWord(word: U.Word): ShellWord {
  const text = word.text;
  const parts = word.parts;
  const known = parts === undefined ? literalKnown(word.text) : parts.every(partKnown);
  return { text, value: word.value, known };
}

/**
 * Visits every nested script and arithmetic context in a word (or a here-document body).
 * @param node the word or body
 * @param visitor receives the nested scripts and arithmetic texts
 * @param frame passed back to the visitor as is
 */
export function walkWordParts<F>(
  node: { readonly parts?: readonly (U.WordPart | U.DoubleQuotedChild)[] | undefined },
  visitor: PartVisitor,
  frame: F,
): void {
  const parts = node.parts;
  if (parts === undefined) return;
  const v = visitor as unknown as {
    visitScript(script: U.Script | undefined, frame: F, pos: number, end: number): void;
    visitArithmetic(text: string, frame: F, pos: number, end: number): void;
    visitUnsupported(text: string, frame: F, pos: number, end: number): void;
    visitEvaluation(
      kind: 'unsupported' | 'assignment',
      message: string,
      frame: F,
      pos: number,
      end: number,
    ): void;
  };
  for (const part of parts) {
    switch (part.type) {
      case 'CommandExpansion':
      case 'ProcessSubstitution':
        v.visitScript(part.script, frame, part.pos, part.end);
        break;
      case 'ArithmeticExpansion':
        // The expression without its `$((`/`))` or `$[`/`]`: the `$(` of the delimiter is no command substitution.
        v.visitArithmetic(arithmeticBody(part.text), frame, part.pos, part.end);
        break;
      case 'DoubleQuoted':
      case 'LocaleString':
        walkWordParts(part, visitor, frame);
        break;
      case 'ParameterExpansion': {
        // `${ cmd; }` and `${| cmd; }` run commands in bash 5.3: not modelled.
        if (/^\$\{[\s|]/.test(part.text)) v.visitUnsupported(part.text, frame, part.pos, part.end);
        const op = part.operation;
        // The value of a variable is script text the model controls (`$_` is the last argument of the previous
        // command): `${!x}` uses it as a name, whose subscript bash evaluates (`a[$(cmd)]` runs `cmd`), and
        // `${x@P}` expands it as a prompt, which runs `$(…)`. `${!prefix*}` and `${!a[@]}` only list names.
        const lists = op?.type === 'Names' || part.index?.text === '@' || part.index?.text === '*';
        if (part.prefix === '!' && !lists)
          v.visitEvaluation(
            'unsupported',
            `an indirect expansion, which evaluates a variable's value as a name: \`${part.text}\``,
            frame,
            part.pos,
            part.end,
          );
        if (op?.type === 'Transform' && /P/.test(op.operand.text))
          v.visitEvaluation(
            'unsupported',
            `a prompt expansion, which runs the substitutions in a variable's value: \`${part.text}\``,
            frame,
            part.pos,
            part.end,
          );
        if (op?.type === 'Default' && (op.operator === '=' || op.operator === ':='))
          v.visitEvaluation(
            'assignment',
            `an expansion that assigns a variable: \`${part.text}\``,
            frame,
            part.pos,
            part.end,
          );
        // Subscripts and slice offsets are arithmetic; default, pattern and replacement words may nest commands.
        if (part.index && !lists) {
          v.visitArithmetic(part.index.text, frame, part.index.pos, part.index.end);
          walkWordParts(part.index, visitor, frame);
        }
        if (op === undefined) break;
        for (const w of operationWords(op)) walkWordParts(w, visitor, frame);
        if (op.type === 'Slice')
          for (const w of op.length ? [op.offset, op.length] : [op.offset])
            v.visitArithmetic(w.text, frame, w.pos, w.end);
        break;
      }
      case 'BraceExpansion':
      case 'ExtendedGlob':
      case 'Glob':
        walkWordParts(part as { parts?: readonly U.WordPart[] }, visitor, frame);
        break;
      default:
        break;
    }
  }
}

/** The expression of an arithmetic expansion as written (`$((1+2))` → `1+2`, `$[x]` → `x`). */
function arithmeticBody(text: string): string {
  if (text.startsWith('$((') && text.endsWith('))')) return text.slice(3, -2);
  if (text.startsWith('$[') && text.endsWith(']')) return text.slice(2, -1);
  return text;
}

function operationWords(op: U.ParameterOperation): U.Word[] {
  switch (op.type) {
    case 'Default':
    case 'Remove':
    case 'Transform':
      return [op.operand];
    case 'CaseModification':
      return op.operand ? [op.operand] : [];
    case 'Replace':
      return [op.pattern, op.replacement];
    case 'Slice':
      return op.length ? [op.offset, op.length] : [op.offset];
    default:
      return [];
  }
}
