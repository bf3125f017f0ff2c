/**
 * Path patterns and path resolution for `paths:` argument rules.
 *
 * A path pattern is a minimatch glob relative to the workspace root (`*`, `**`, `?`, `[..]`, `{a,b}`), with
 * `dot: true`, so `*` and `**` also match dotfiles (a deny of `**\/secret*` must catch `.secret`). A pattern that
 * starts with `/` is absolute and matches absolute paths instead. Braces are expanded here, bounded, and each
 * alternative has its own specificity (its count of literal characters, as for tool-name globs).
 *
 * A call's path is resolved before matching, by a {@link PathResolver}: the path as written, normalised lexically
 * against the workspace root (`./`, `..`, repeated slashes), and its target, where the kernel will land (every
 * symlink replaced by its target as the walk meets it, so a `..` after a link leaves the link target's parent).
 * The pure {@link lexicalPathResolver} has no filesystem, so its target is the written path; the host and the CLI
 * pass a resolver over the real filesystem (`fs-path-resolver.ts`, over src/files/resolve-path.ts), which also
 * answers why a path cannot be resolved safely.
 *
 * Matching rules, all failing closed:
 * - relative patterns see a form only when it is inside the workspace; absolute patterns see its absolute text;
 * - an allow pattern never matches a form outside the workspace;
 * - deny and ask patterns match case-insensitively and allow patterns case-sensitively: on a case-insensitive
 *   filesystem `.ENV` is the file `.env`, so a deny of `.env*` must catch it, while an allow of `notes/**` does not
 *   stretch to `NOTES/x`.
 * @module
 */
import { posix } from 'node:path';
import { Minimatch } from 'minimatch';
import { relativeTo } from '../../files/resolve-path.js';
import { countLiterals, expandBraces, MAX_COMPILED_ALTERNATIVES } from '../language/glob.js';
import { compareRestrictiveness } from './restrictiveness.js';
import type { Decision, PathForm, PathResolver, ResolvedPath } from '../types.js';

export type { PathForm, PathResolver, ResolvedPath } from '../types.js';
export { relativeTo };

// A root no real path lies under: with no workspace, every absolute path is outside it.
const VIRTUAL_ROOT = '/\ufffeworkspace';

/**
 * A resolver without a filesystem: the path normalised lexically; its target is the same path.
 * @param workspace the workspace root (absolute); without it relative paths are workspace-relative and every
 *   absolute path is outside
 * @returns the resolver
 */
export function lexicalPathResolver(workspace?: string): (path: string) => ResolvedPath | undefined {
  const root = workspace === undefined ? VIRTUAL_ROOT : posix.resolve(workspace);
  return (path) => {
    if (path.includes('\0')) return undefined;
    const absolute = posix.resolve(root, path);
    const relative = relativeTo(root, absolute);
    const form: PathForm = relative === undefined ? { absolute } : { absolute, relative };
    return { written: form, target: form };
  };
}

/** One alternative of a path pattern. */
interface PathAlternative {
  readonly absolute: boolean;
  readonly specificity: number;
  readonly sensitive: Minimatch;
  readonly insensitive: Minimatch;
}

/** A compiled path pattern. */
export interface PathPattern {
  readonly source: string;
  /** The highest specificity among its alternatives. */
  readonly specificity: number;
  /** Why the pattern is invalid, when it is (lint reports it; it then matches nothing). */
  readonly error?: string;
  /**
   * The specificity of the most specific alternative matching a form, or -1 when none does.
   * @param forAllow allow patterns match case-sensitively and never outside the workspace
   */
  match(form: PathForm, forAllow: boolean): number;
}

const OPTIONS = { dot: true, nobrace: true, nonegate: true, nocomment: true, optimizationLevel: 1 } as const;

/**
 * Compiles a path pattern as written under `paths:`.
 * @returns the pattern (an invalid one matches nothing and says why)
 */
export function compilePathPattern(source: string): PathPattern {
  const expanded = expandBraces(source, MAX_COMPILED_ALTERNATIVES);
  if (expanded === undefined || source.length === 0) {
    const error =
      source.length === 0
        ? 'empty path pattern'
        : `braces expand to more than ${MAX_COMPILED_ALTERNATIVES} alternatives`;
    return { source, specificity: 0, error, match: () => -1 };
  }
  const alternatives: PathAlternative[] = expanded.map((raw) => {
    const { absolute, pattern } = normalizePathPattern(raw);
    return {
      absolute,
      specificity: countLiterals(pattern),
      sensitive: new Minimatch(pattern, OPTIONS),
      insensitive: new Minimatch(pattern, { ...OPTIONS, nocase: true }),
    };
  });
  const specificity = Math.max(...alternatives.map((a) => a.specificity));
  return {
    source,
    specificity,
    match(form, forAllow) {
      if (forAllow && form.relative === undefined) return -1;
      let best = -1;
      for (const alt of alternatives) {
        const text = alt.absolute ? form.absolute : form.relative;
        if (text === undefined || alt.specificity <= best) continue;
        if ((forAllow ? alt.sensitive : alt.insensitive).match(text)) best = alt.specificity;
      }
      return best;
    },
  };
}

/**
 * One alternative of a path pattern as it is matched: paths are compared normalised, so patterns are too
 * (`./notes//**` means `notes/**`). The exact diff reads patterns through this same function.
 */
export function normalizePathPattern(raw: string): { absolute: boolean; pattern: string } {
  if (raw.startsWith('/')) return { absolute: true, pattern: posix.normalize(raw) };
  let p = raw;
  while (p.startsWith('./')) p = p.slice(2);
  return { absolute: false, pattern: p.replace(/\/{2,}/g, '/') };
}

/** A pattern with its decision, as a path table holds it. */
export interface PathCandidate {
  readonly pattern: PathPattern;
  readonly decision: Decision;
}

/**
 * The winning pattern for one form: the most specific match, then the most restrictive, then the first.
 * @returns the index of the winner in `candidates`, or -1 when none matches
 */
export function pickPathPattern(candidates: readonly PathCandidate[], form: PathForm): number {
  let best = -1;
  let bestSpec = -1;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    const spec = c.pattern.match(form, c.decision === 'allow');
    if (spec < 0) continue;
    if (
      best < 0 ||
      spec > bestSpec ||
      (spec === bestSpec && compareRestrictiveness(c.decision, candidates[best]!.decision) > 0)
    ) {
      best = i;
      bestSpec = spec;
    }
  }
  return best;
}
