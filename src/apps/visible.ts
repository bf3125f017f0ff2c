/**
 * The one escaping function for text the apps show to people (the chat's terminal, the titles and cards an ACP
 * client displays) when a model, a tool or a file controls that text. Characters that act on a terminal or hide
 * and reorder text are printed as their escaped spelling instead: C0 and C1 controls and DEL (`\xNN`), format
 * characters such as bidi overrides, isolates and marks and zero-width characters (`\u202e`, `\u200b`), line and
 * paragraph separators, and lone surrogates. So a model cannot repaint the screen, reorder an approval question,
 * or hide part of it. Newline and tab pass in a block; in a line they are escaped too, so one value can never
 * start a new line that looks like the app's own.
 * @module
 */

/** `block`: newline and tab pass (streamed text, a plan's body); `line`: they are escaped as well. */
export type VisibleMode = 'block' | 'line';

const BLOCK = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * Untrusted text made safe to show.
 * @param text the text
 * @param mode `block` (the default) keeps newlines and tabs, `line` escapes them
 * @returns the text with every control, format, separator and lone surrogate character spelled out
 */
export function visible(text: string, mode: VisibleMode = 'block'): string {
  return text.replace(BLOCK, (c) => (mode === 'block' && (c === '\n' || c === '\t') ? c : spell(c)));
}

function spell(c: string): string {
  const code = c.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}
