/**
 * The one colour module of the command line: whether stdout takes ANSI colours, and painting text with them.
 *
 * The rule, in order: `FORCE_COLOR` set to anything but `''`, `0` or `false` turns colour on; `FORCE_COLOR=0` (or
 * `false`) turns it off; `NO_COLOR` set to anything but `''` turns it off (https://no-color.org); otherwise colour
 * is on when stdout is a TTY and `TERM` is not `dumb`.
 * @module
 */

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, bold: 1, dim: 2, underline: 4 } as const;

/** A style {@link paint} can apply. */
export type Style = keyof typeof CODES;

/**
 * Whether to colour output.
 * @param env the environment (`FORCE_COLOR`, `NO_COLOR`, `TERM`)
 * @param isTTY whether stdout is a terminal
 * @returns true for colour
 */
export function colourEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

/**
 * Text in a style, or unchanged when colour is off.
 * @param style the style
 * @param text the text
 * @param on whether colour is on
 * @returns the text, wrapped in the style's escape codes when `on`
 */
export function paint(style: Style, text: string, on: boolean): string {
  return on ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}
