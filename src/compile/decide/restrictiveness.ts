/**
 * The one order of decisions, deny > ask > allow: the ceiling across documents, ties between rules and patterns,
 * and the host's fold of verdicts all read it from here, so it is written once.
 * @module
 */
import type { Decision } from '../types.js';

/** The rank of each decision: 0 for allow, 1 for ask, 2 for deny. */
export const RESTRICTIVENESS: Readonly<Record<Decision, number>> = Object.freeze({
  allow: 0,
  ask: 1,
  deny: 2,
});

/**
 * Restrictiveness order: positive when `a` is more restrictive than `b`.
 * @returns a comparison number
 */
export function compareRestrictiveness(a: Decision, b: Decision): number {
  return RESTRICTIVENESS[a] - RESTRICTIVENESS[b];
}

/**
 * The more restrictive of two decisions; `a` on a tie.
 * @returns `a` or `b`
 */
export function mostRestrictive(a: Decision, b: Decision): Decision {
  return RESTRICTIVENESS[b] > RESTRICTIVENESS[a] ? b : a;
}
