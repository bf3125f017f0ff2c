/**
 * `unmatchable-pattern`: a `commands:` or `paths:` pattern that never matches what it looks like it matches.
 *
 * - A command pattern of blanks only: it has no words, so it matches nothing (an empty key, or braces that expand
 *   too far, are refused when the file loads).
 * - A command pattern with shell syntax in a word (`git log | head`, `echo "hi"`, `cat $F`). Scripts are split
 *   into simple commands and their words dequoted before matching, so such a word matches only a quoted word
 *   that holds those very characters, never the pipeline or expansion it spells.
 * - A path pattern with a `.` or `..` segment (`../secrets/**`, `src/./x`), or ending in `/`. Paths are normalised
 *   before matching (workspace-relative, no `.` or `..` segments, no final `/`), so it never matches: a deny
 *   written that way protects nothing.
 * - An absolute allow pattern (`/etc/**`): a path outside the workspace is never allowed, so it allows only paths
 *   of a workspace that lies under it.
 * - A pattern shadowed by another of its table (`../argument-shadows.ts`): the other matches everything it matches and always
 *   wins (more specific; or as specific and more restrictive; or as specific, the same decision and written first),
 *   so it never decides. A more specific pattern inside a general one (`git log **: allow` beside `git **: deny`)
 *   is not shadowed: it wins.
 * @module
 */
import { expandBraces } from '../../language/glob.js';
import { defineRule } from './define.js';
import { findShadows } from '../argument-shadows.js';

/** Characters a dequoted word of a simple command holds only when they were quoted. */
const SHELL_SYNTAX = /[;|&<>()"'`$\\]/;

export default defineRule({
  id: 'unmatchable-pattern',
  meta: {
    description:
      'a command or path pattern can never match what it spells, or never decides because another always wins',
    severity: 'warning',
    messages: {
      invalid: {
        text: 'pattern `{{pattern}}` matches nothing: {{error}}',
        help: 'write a command (words) or a path glob, or remove the entry',
      },
      shellSyntax: {
        text: 'command pattern `{{pattern}}` contains `{{char}}`, which a word holds only when quoted: scripts are split into simple commands and dequoted before matching',
        help: 'write one pattern per simple command (`git log **` and `head **` for `git log | head`), without quotes, operators or expansions',
      },
      dotSegment: {
        text: 'path pattern `{{pattern}}` has a `{{segment}}` segment, and paths are normalised before matching, so it never matches',
        help: 'write the path as it normalises; a path outside the workspace is matched only by an absolute pattern such as `/etc/**`',
      },
      trailingSlash: {
        text: 'path pattern `{{pattern}}` ends in `/`, and paths are matched without a final `/`, so it never matches',
        help: 'write `{{folder}}` for the folder itself, or `{{folder}}/**` for what it holds',
      },
      shadowed: {
        text: 'pattern `{{pattern}}: {{decision}}` never decides: `{{other}}: {{otherDecision}}` matches every {{subject}} it matches and wins, being {{why}}',
        help: 'remove `{{pattern}}`, or make it more specific than `{{other}}` (more literal characters)',
      },
      absoluteAllow: {
        text: 'allow pattern `{{pattern}}` is absolute, and a path outside the workspace is never allowed, so it allows only paths of a workspace under it',
        help: 'write the pattern relative to the workspace root, or make it a deny or ask',
      },
    },
    docs: {
      failing: 'mode: review\ntools:\n  read:\n    paths:\n      "../secrets/**": deny\n',
      passing: 'mode: review\ntools:\n  read:\n    paths:\n      "/home/me/secrets/**": deny\n',
      fix: 'Write command patterns as the words of one simple command, and path patterns as normalised workspace-relative globs (absolute ones only to deny or ask outside the workspace). Remove a pattern that another of its table always beats, or make it more specific than that one. Limits (missed findings, never a wider decision): a pattern covered only by several others together is not reported, and a path pattern with a character class or an extglob never counts as covering another.',
    },
  },
  check(context, report) {
    for (const rule of context.argumentRules()) {
      for (const table of rule.tables) {
        for (const { pattern, by, why } of findShadows(table)) {
          const data = {
            pattern: pattern.source,
            decision: pattern.decision,
            other: by.source,
            otherDecision: by.decision,
            subject: table.kind === 'commands' ? 'command' : 'path',
            why,
          };
          report({ messageId: 'shadowed', data, path: pattern.path });
        }
        for (const p of table.patterns) {
          const base = { pattern: p.source };
          if (p.error !== undefined) {
            report({ messageId: 'invalid', data: { ...base, error: p.error }, path: p.path });
            continue;
          }
          if (table.kind === 'commands') {
            const char = SHELL_SYNTAX.exec(p.source)?.[0];
            if (char !== undefined)
              report({ messageId: 'shellSyntax', data: { ...base, char }, path: p.path });
            continue;
          }
          const finding = pathFinding(p.source, p.decision === 'allow');
          if (finding) report({ ...finding, data: { ...base, ...finding.data }, path: p.path });
        }
      }
    }
  },
});

type PathFinding =
  | { messageId: 'dotSegment'; data: { segment: string } }
  | { messageId: 'trailingSlash'; data: { folder: string } }
  | { messageId: 'absoluteAllow'; data: Record<string, never> };

function pathFinding(pattern: string, allow: boolean): PathFinding | undefined {
  for (const alternative of expandBraces(pattern) ?? []) {
    const absolute = alternative.startsWith('/');
    if (!absolute) {
      const relative = alternative.replace(/^(\.\/)+/, '');
      // `.` alone is the workspace root, the form `list` and `grep` are judged by without a path.
      const segments = relative === '.' ? [] : relative.split('/');
      const segment = segments.find((s) => s === '.' || s === '..');
      if (segment !== undefined) return { messageId: 'dotSegment', data: { segment } };
    }
    if (alternative.length > 1 && alternative.endsWith('/')) {
      return { messageId: 'trailingSlash', data: { folder: alternative.replace(/\/+$/, '') } };
    }
    if (absolute && allow) return { messageId: 'absoluteAllow', data: {} };
  }
  return undefined;
}
