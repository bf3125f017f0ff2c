/**
 * Small pieces shared by the `matrix` and `diff` formatters: a decision in colour (only when asked), a rule's
 * reference as text, and Markdown escaping for table cells (tool names are arbitrary strings: a `|`, a
 * backtick or a newline in a name must not break a pull-request comment).
 * @module
 */
import type { Decision, RuleRef } from '../../compile/types.js';
import { paint, type Style } from '../../apps/colour.js';
import { shownFile } from './paths.js';

/** The colour of each decision, in every human format. */
export const DECISION_STYLE: Readonly<Record<Decision, Style>> = {
  allow: 'green',
  ask: 'yellow',
  deny: 'red',
};

/**
 * A decision padded to `width`, coloured when `color` is true (padding stays outside the escape codes).
 * @returns the text
 */
export function paintDecision(decision: Decision, color: boolean, width = 0): string {
  const pad = ' '.repeat(Math.max(0, width - decision.length));
  return paint(DECISION_STYLE[decision], decision, color) + pad;
}

/**
 * A rule reference for people: `` `selector` at file:line:column ``, or the selector alone without a file.
 * @returns the text
 */
export function describeRule(rule: RuleRef): string {
  if (rule.file === null) return rule.selector === 'default' ? 'no rule (denied by default)' : rule.selector;
  return `\`${rule.selector}\` at ${shownFile(rule.file)}:${rule.line ?? 1}:${rule.column ?? 1}`;
}

/**
 * Inline code for a Markdown table cell, safe for any text.
 * @returns the cell text
 */
export function mdCode(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, ' ').replace(/\|/g, '\\|');
  const fence = flat.includes('`') ? '``' : '`';
  const pad = fence === '``' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Plain text for a Markdown table cell: pipes escaped, newlines flattened.
 * @returns the cell text
 */
export function mdText(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ').replace(/\|/g, '\\|');
}

/**
 * A rule reference for a Markdown cell.
 * @returns the cell text
 */
export function mdRule(rule: RuleRef): string {
  if (rule.file === null) return rule.selector === 'default' ? 'denied by default' : mdText(rule.selector);
  return `${mdCode(rule.selector)} at ${mdCode(`${shownFile(rule.file)}:${rule.line ?? 1}:${rule.column ?? 1}`)}`;
}
