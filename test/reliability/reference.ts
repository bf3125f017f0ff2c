/**
 * An independent reference evaluator of the policy language, written from the language's specification (docs/reference/policy-language.md) alone (no code from
 * src/compile): brace expansion, specificity, glob matching by its own regular expressions, per-document
 * resolution (exact → most specific glob → effects → default → abstain) and composition as a ceiling with
 * `override`. The fuzz tests compare the compiler's `decide()` with it on random documents.
 *
 * Scope: selectors built from literals, `*`, `?`, `[...]` classes, `\`-escapes and one level of `{a,b}` braces
 * (what the generator in policy-arbitraries.ts writes). Invalid selectors are outside it (lint reports those).
 */

export type Decision = 'allow' | 'ask' | 'deny';
export type HintName = 'readOnly' | 'destructive' | 'idempotent' | 'openWorld';
export type RuleValue = Decision | { decision: Decision; reason?: string };

/** A validated document, as plain data. */
export interface RefDocument {
  mode: string;
  tools?: Record<string, RuleValue>;
  effects?: Partial<Record<HintName, RuleValue>>;
  default?: Decision;
  override?: boolean;
}

/** What the reference decides: the decision and which selector of which document decided. */
export interface RefDecision {
  decision: Decision;
  /** `default` when no document decided (the built-in deny). */
  selector: string;
  /** Index in the load order of the deciding document, or -1 for the built-in deny. */
  document: number;
  reason?: string;
}

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const HINTS: HintName[] = ['readOnly', 'destructive', 'idempotent', 'openWorld'];

/** `{a,b}` expansion; a group without a top-level comma is literal. Escapes and classes are skipped over. */
export function expand(selector: string): string[] {
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const end = classClose(selector, i);
      if (end > 0) i = end;
      continue;
    }
    if (c !== '{') continue;
    let depth = 0;
    const cuts: number[] = [];
    for (let j = i + 1; j < selector.length; j++) {
      const d = selector[j];
      if (d === '\\') j++;
      else if (d === '{') depth++;
      else if (d === '}' && depth > 0) depth--;
      else if (d === ',' && depth === 0) cuts.push(j);
      else if (d === '}') {
        if (cuts.length === 0) break;
        const parts: string[] = [];
        let from = i + 1;
        for (const cut of [...cuts, j]) {
          parts.push(selector.slice(from, cut));
          from = cut + 1;
        }
        const head = selector.slice(0, i);
        const tail = selector.slice(j + 1);
        const out: string[] = [];
        for (const part of parts)
          for (const e of expand(head + part + tail)) if (!out.includes(e)) out.push(e);
        return out;
      }
    }
  }
  return [selector];
}

function classClose(p: string, open: number): number {
  let i = open + 1;
  if (p[i] === '!' || p[i] === '^') i++;
  if (p[i] === ']') i++;
  for (; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === ']') return i;
  }
  return -1;
}

interface Compiled {
  glob: boolean;
  literal?: string;
  specificity: number;
  re?: RegExp;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** One brace-free alternative: a literal name or a regular expression, and its literal-character count. */
export function compileAlternative(pattern: string): Compiled {
  let source = '';
  let literal = '';
  let specificity = 0;
  let glob = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const x = pattern[++i]!;
      source += escapeRe(x);
      literal += x;
      specificity++;
    } else if (c === '*') {
      glob = true;
      source += '[\\s\\S]*';
    } else if (c === '?') {
      glob = true;
      source += '[\\s\\S]';
    } else if (c === '[' && classClose(pattern, i) > 0) {
      const end = classClose(pattern, i);
      let body = pattern.slice(i + 1, end);
      let negate = false;
      if (body[0] === '!' || body[0] === '^') {
        negate = true;
        body = body.slice(1);
      }
      const members = [...body.replace(/\\(.)/g, '$1')].map(escapeRe).join('');
      source += negate ? `[^${members}]` : `[${members}]`;
      glob = true;
      i = end;
    } else {
      source += escapeRe(c);
      literal += c;
      specificity++;
    }
  }
  return glob ? { glob, specificity, re: new RegExp(`^${source}$`, 'u') } : { glob, specificity, literal };
}

/** MCP defaults: destructive unless read-only, open-world unless said otherwise. */
export function effective(hints: Partial<Record<HintName, boolean>> | undefined): Record<HintName, boolean> {
  const readOnly = hints?.readOnly === true;
  return {
    readOnly,
    destructive: hints?.destructive ?? !readOnly,
    idempotent: hints?.idempotent === true,
    openWorld: hints?.openWorld ?? true,
  };
}

const decisionOf = (v: RuleValue): Decision => (typeof v === 'string' ? v : v.decision);
const reasonOf = (v: RuleValue): string | undefined => (typeof v === 'string' ? undefined : v.reason);

/** Resolves within one document; undefined when it abstains. */
export function resolveDocument(
  doc: RefDocument,
  name: string,
  hints?: Partial<Record<HintName, boolean>>,
): Omit<RefDecision, 'document'> | undefined {
  const exact: { selector: string; value: RuleValue }[] = [];
  const globs: { selector: string; value: RuleValue; specificity: number }[] = [];
  for (const [selector, value] of Object.entries(doc.tools ?? {})) {
    for (const alt of expand(selector)) {
      const c = compileAlternative(alt);
      if (!c.glob) {
        if (c.literal === name) exact.push({ selector, value });
      } else if (name.length > 0 && c.re!.test(name)) {
        globs.push({ selector, value, specificity: c.specificity });
      }
    }
  }
  const strictest = <T extends { value: RuleValue }>(list: T[]): T | undefined =>
    list.reduce<T | undefined>(
      (best, x) => (!best || RANK[decisionOf(x.value)] > RANK[decisionOf(best.value)] ? x : best),
      undefined,
    );
  const fromRule = (x: { selector: string; value: RuleValue }) => {
    const reason = reasonOf(x.value);
    return {
      decision: decisionOf(x.value),
      selector: x.selector,
      ...(reason !== undefined ? { reason } : {}),
    };
  };
  if (exact.length > 0) return fromRule(strictest(exact)!);
  if (globs.length > 0) {
    const top = Math.max(...globs.map((g) => g.specificity));
    return fromRule(strictest(globs.filter((g) => g.specificity === top))!);
  }
  const h = effective(hints);
  const effects = HINTS.filter((k) => h[k] && doc.effects?.[k] !== undefined).map((k) => ({
    selector: `effects.${k}`,
    value: doc.effects![k]!,
  }));
  if (effects.length > 0) return fromRule(strictest(effects)!);
  if (doc.default) return { decision: doc.default, selector: 'default' };
  return undefined;
}

/** Composes the documents of `mode` in load order as a ceiling (`override: true` drops what came before). */
export function decideReference(
  documents: readonly RefDocument[],
  mode: string,
  name: string,
  hints?: Partial<Record<HintName, boolean>>,
): RefDecision {
  let start = 0;
  documents.forEach((d, i) => {
    if (d.mode === mode && d.override === true) start = i;
  });
  let best: RefDecision | undefined;
  for (let i = start; i < documents.length; i++) {
    const doc = documents[i]!;
    if (doc.mode !== mode) continue;
    const r = resolveDocument(doc, name, hints);
    if (r && (!best || RANK[r.decision] > RANK[best.decision])) best = { ...r, document: i };
  }
  return best ?? { decision: 'deny', selector: 'default', document: -1 };
}
