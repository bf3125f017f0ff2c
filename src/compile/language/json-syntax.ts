/**
 * Strict JSON syntax (RFC 8259) for `.json` policy files: the first error with its offset, in our words. The
 * `yaml` parser reads JSON as YAML flow, which accepts what JSON refuses (a trailing comma, a `#` comment, a
 * `// comment` read as a key), so a `.json` file is first scanned by `jsonc-parser` with comments and trailing
 * commas disallowed. Only the syntax is checked here: once the text is valid JSON, `parse.ts` builds the tree and
 * its positions as for YAML, so there is one position mapper.
 * @module
 */
import { parse as jsoncParse, ParseErrorCode } from 'jsonc-parser';

/** The first JSON syntax error: where it is (offset and length in UTF-16 code units) and what it is. */
export interface JsonSyntaxError {
  offset: number;
  length: number;
  message: string;
  help?: string;
}

/**
 * Checks strict JSON syntax.
 * @param text the file's text
 * @returns the first error, or undefined for valid JSON
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const errors: { error: ParseErrorCode; offset: number; length: number }[] = [];
  jsoncParse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) {
    // The scanner takes some Unicode spaces for whitespace: JSON.parse has the last word on what JSON is.
    try {
      JSON.parse(text);
      return undefined;
    } catch (error) {
      return { offset: 0, length: 1, message: `invalid JSON: ${(error as Error).message}` };
    }
  }
  const at = text.charAt(first.offset);
  const comma = at === '}' || at === ']' ? previousSignificant(text, first.offset) : -1;
  if (comma !== -1 && text.charAt(comma) === ',') {
    return {
      offset: comma,
      length: 1,
      message: `trailing comma before \`${at}\`: JSON allows none`,
      help: 'remove the `,` after the last item',
    };
  }
  return {
    offset: first.offset,
    length: Math.max(1, first.length),
    ...describe(first.error, text, first.offset),
  };
}

function describe(
  code: ParseErrorCode,
  text: string,
  offset: number,
): Omit<JsonSyntaxError, 'offset' | 'length'> {
  const at = text.charAt(offset);
  const shown = offset >= text.length ? 'the end of the file' : `\`${at}\``;
  switch (code) {
    case ParseErrorCode.InvalidCommentToken:
    case ParseErrorCode.UnexpectedEndOfComment:
      return {
        message: 'comment in JSON: JSON has no comments',
        help: 'remove it, or write the policy in YAML (`.yaml`), where `#` starts a comment',
      };
    case ParseErrorCode.PropertyNameExpected:
      return { message: `expected a property name in double quotes, found ${shown}` };
    case ParseErrorCode.ValueExpected:
      return { message: `expected a value, found ${shown}` };
    case ParseErrorCode.ColonExpected:
      return { message: `expected \`:\` after the property name, found ${shown}` };
    case ParseErrorCode.CommaExpected:
      return { message: `expected \`,\` between items, found ${shown}` };
    case ParseErrorCode.CloseBraceExpected:
      return { message: `expected \`}\` to close the object, found ${shown}` };
    case ParseErrorCode.CloseBracketExpected:
      return { message: `expected \`]\` to close the array, found ${shown}` };
    case ParseErrorCode.EndOfFileExpected:
      return { message: `expected the end of the file after the value, found ${shown}` };
    case ParseErrorCode.UnexpectedEndOfString:
      return { message: 'string not closed: a JSON string ends with `"` on the same line' };
    case ParseErrorCode.UnexpectedEndOfNumber:
    case ParseErrorCode.InvalidNumberFormat:
      return { message: 'invalid number' };
    case ParseErrorCode.InvalidUnicode:
      return { message: 'invalid `\\u` escape: it takes four hexadecimal digits' };
    case ParseErrorCode.InvalidEscapeCharacter:
      return { message: 'invalid escape in a string' };
    case ParseErrorCode.InvalidCharacter:
      return { message: 'invalid character in a string: control characters must be escaped' };
    default:
      return at === "'"
        ? { message: "JSON strings take double quotes, not `'`" }
        : { message: `invalid JSON at ${shown}` };
  }
}

/** The offset of the last character before `offset` that is not JSON whitespace, or -1. */
function previousSignificant(text: string, offset: number): number {
  for (let i = offset - 1; i >= 0; i--) {
    const c = text.charAt(i);
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') return i;
  }
  return -1;
}
