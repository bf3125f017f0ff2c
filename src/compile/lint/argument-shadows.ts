/**
 * Shadowed argument patterns, for `unmatchable-pattern`: a pattern of a `commands:` or `paths:` table that another
 * pattern of the same table always beats, so it never decides. A table picks, for each command or path, the most
 * specific matching pattern (its count of literal characters), then the most restrictive, then the first written.
 * So `b` shadows `a` when `b` matches everything `a` matches and is more specific, or as specific and more
 * restrictive, or as specific, deciding the same and written first. An allow never shadows a deny or ask: those
 * also match words and paths an allow never sees (unknown words, other letter cases).
 *
 * "Matches everything" is proved symbolically (`commandCovers`, `pathCovers` in `argument-overlap.ts`), then
 * checked on the shadowed pattern's own probes with the real matchers, so a finding is never wrong; a pattern
 * covered only by several others together is not found. Only patterns of one table compete this way: across
 * documents the ceiling decides (`pattern-under-ceiling`).
 * @module
 */
import {
  commandCovers,
  pathAlternatives,
  pathCovers,
  type PathAlternative,
} from '../decide/argument-overlap.js';
import { commandProbes, pathProbes } from './argument-probes.js';
import { RESTRICTIVENESS } from '../decide/document.js';
import { matchCommand, type ShellWord } from '../shell/index.js';
import type { ArgumentPattern, ArgumentTable } from '../types.js';

/** A shadowed pattern, the pattern that always beats it, and why it wins. */
export interface Shadow {
  pattern: ArgumentPattern;
  by: ArgumentPattern;
  /** `more specific`, `as specific and more restrictive`, or `as specific, deciding the same, and written first`. */
  why: string;
}

/**
 * The shadowed patterns of a table, each with the first pattern (in table order) that shadows it.
 * @returns one entry per shadowed pattern, in table order
 */
export function findShadows(table: ArgumentTable): Shadow[] {
  const patterns = table.patterns.filter((p) => p.error === undefined);
  const out: Shadow[] = [];
  const alternatives =
    table.kind === 'paths' ? new Map(patterns.map((p) => [p, pathAlternatives(p.source)])) : undefined;
  for (const p of patterns) {
    for (const q of patterns) {
      if (q === p || (q.decision === 'allow' && p.decision !== 'allow')) continue;
      const why =
        alternatives === undefined
          ? commandShadow(q, p)
          : pathShadow(q, alternatives.get(q)!, p, alternatives.get(p)!);
      if (why === undefined) continue;
      out.push({ pattern: p, by: q, why });
      break;
    }
  }
  return out;
}

/** Why `q` wins over `p` at these specificities, or undefined when it does not always. */
function wins(q: ArgumentPattern, qSpec: number, p: ArgumentPattern, pSpec: number): string | undefined {
  if (qSpec > pSpec) return 'more specific';
  if (qSpec < pSpec) return undefined;
  const rank = RESTRICTIVENESS[q.decision] - RESTRICTIVENESS[p.decision];
  if (rank > 0) return 'as specific and more restrictive';
  if (rank === 0 && q.order < p.order) return 'as specific, deciding the same, and written first';
  return undefined;
}

const known = (value: string): ShellWord => ({ text: value, value, known: true });

function commandShadow(q: ArgumentPattern, p: ArgumentPattern): string | undefined {
  const why = wins(q, q.specificity, p, p.specificity);
  if (why === undefined || !commandCovers(q.source, p.source, q.decision === 'allow')) return undefined;
  // The proof, checked on the commands `p` is probed with.
  for (const probe of commandProbes(p.source)) {
    const words = probe.split(' ').map(known);
    if (!matchCommand(p.source, words, { forAllow: p.decision === 'allow' })) continue;
    if (!matchCommand(q.source, words, { forAllow: q.decision === 'allow' })) return undefined;
  }
  return why;
}

function pathShadow(
  q: ArgumentPattern,
  qAlternatives: readonly PathAlternative[],
  p: ArgumentPattern,
  pAlternatives: readonly PathAlternative[],
): string | undefined {
  if (pAlternatives.length === 0) return undefined;
  let reason: string | undefined;
  // Every alternative of `p` must be beaten by one of `q`'s (see the module header of `paths.ts`).
  for (const a of pAlternatives) {
    const beaten = qAlternatives
      .map((b) => (pathCovers(b, a) ? wins(q, b.specificity, p, a.specificity) : undefined))
      .find((why) => why !== undefined);
    if (beaten === undefined) return undefined;
    reason ??= beaten;
  }
  const pAllow = p.decision === 'allow';
  const qAllow = q.decision === 'allow';
  for (const probe of pathProbes(p.source)) {
    if (!pAlternatives.some((a) => a.matches(probe, pAllow))) continue;
    if (!qAlternatives.some((b) => b.matches(probe, qAllow))) return undefined;
  }
  return reason;
}
