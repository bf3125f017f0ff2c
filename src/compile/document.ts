/**
 * Compiling one validated document into resolution tables, and resolving a tool within one document.
 *
 * Resolution (DESIGN.md section 2, never dependent on key order for the decision): exact name → the most specific
 * matching glob → `effects` (most restrictive among the hints that are true) → `default` → abstain. Equal
 * candidates that disagree resolve to the most restrictive (deny > ask > allow); among agreeing ones the first in
 * document order (effects: canonical hint order) is reported. Pure: no I/O.
 * @module
 */
import { parseSelector } from './glob.js';
import type {
  CompiledDefault,
  CompiledDocument,
  CompiledEffect,
  CompiledEntry,
  CompiledRule,
  Decision,
  DecideResult,
  EffectiveHints,
  HintName,
  Hints,
  JsonPath,
  RuleRef,
  SourceDocument,
} from './types.js';
import type { RuleValue } from './schema-types.generated.js';

/** The hints in canonical order. */
export const HINT_NAMES: readonly HintName[] = ['readOnly', 'destructive', 'idempotent', 'openWorld'];

/** The one restrictiveness rank, deny > ask > allow: 0 for allow, 1 for ask, 2 for deny. */
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
 * The more restrictive of two decisions.
 * @returns `a` or `b`
 */
export function mostRestrictive(a: Decision, b: Decision): Decision {
  return RESTRICTIVENESS[b] > RESTRICTIVENESS[a] ? b : a;
}

/**
 * Applies MCP's defaults: readOnly false, destructive true unless read-only, idempotent false, openWorld true.
 * Values that are not booleans count as absent.
 * @returns every hint set
 */
export function effectiveHints(hints?: Hints): EffectiveHints {
  const readOnly = hints?.readOnly === true;
  return {
    readOnly,
    destructive: typeof hints?.destructive === 'boolean' ? hints.destructive : !readOnly,
    idempotent: hints?.idempotent === true,
    openWorld: typeof hints?.openWorld === 'boolean' ? hints.openWorld : true,
  };
}

/**
 * Compiles one document: parses its selectors, splits exact names from globs and orders globs by specificity.
 * Invalid selectors are recorded in `selectorErrors` and keep what they can still match.
 * @returns the compiled document
 */
export function compileDocument(source: SourceDocument): CompiledDocument {
  const doc = source.document;
  const rules: CompiledRule[] = [];
  const exact = new Map<string, CompiledRule[]>();
  const selectorErrors: { selector: string; path: JsonPath; error: string }[] = [];
  const tools = doc.tools ?? {};
  let order = 0;
  for (const selector of Object.keys(tools)) {
    const value = tools[selector]!;
    const path: JsonPath = ['tools', selector];
    const parsed = parseSelector(selector);
    if (parsed.error) selectorErrors.push({ selector, path, error: parsed.error });
    const { decision, reason } = verdict(value);
    for (const alt of parsed.alternatives) {
      const rule = new ToolEntry(
        source,
        selector,
        alt.pattern,
        decision,
        reason,
        alt.specificity,
        alt.isGlob,
        alt.prefix ?? '',
        order,
        path,
        alt.match,
      );
      rules.push(rule);
      if (alt.name === undefined) continue;
      const list = exact.get(alt.name);
      if (list) list.push(rule);
      else exact.set(alt.name, [rule]);
    }
    order++;
  }
  const globs = rules
    .filter((r) => r.isGlob)
    .sort((a, b) => b.specificity - a.specificity || a.order - b.order);
  const globsByPrefix = new Map<string, CompiledRule[]>();
  for (const rule of globs) {
    const list = globsByPrefix.get(rule.prefix);
    if (list) list.push(rule);
    else globsByPrefix.set(rule.prefix, [rule]);
  }
  const prefixLengths = [...new Set([...globsByPrefix.keys()].map((k) => k.length))].sort((a, b) => a - b);
  const effects: CompiledEffect[] = [];
  for (const hint of HINT_NAMES) {
    const value = doc.effects?.[hint];
    if (value === undefined) continue;
    const { decision, reason } = verdict(value);
    effects.push(new EffectEntry(source, hint, decision, reason));
  }
  const dflt = doc.default === undefined ? undefined : new DefaultEntry(source, doc.default);
  const compiled: CompiledDocument = {
    source,
    mode: doc.mode,
    override: doc.override === true,
    rules,
    exact,
    globs,
    globsByPrefix,
    prefixLengths,
    effects,
    selectorErrors,
  };
  return dflt ? { ...compiled, default: dflt } : compiled;
}

function verdict(value: RuleValue): { decision: Decision; reason?: string } {
  if (typeof value === 'string') return { decision: value };
  return value.reason === undefined
    ? { decision: value.decision }
    : { decision: value.decision, reason: value.reason };
}

/**
 * An entry whose `ref` is located on first use: compiling stays cheap for big policies, and a class keeps the
 * objects in fast (non-dictionary) shape.
 */
class Entry {
  #ref: RuleRef | undefined;
  readonly #source: SourceDocument;
  readonly #selector: string;
  readonly path: JsonPath;

  constructor(source: SourceDocument, selector: string, path: JsonPath) {
    this.#source = source;
    this.#selector = selector;
    this.path = path;
  }

  get ref(): RuleRef {
    if (!this.#ref) {
      const range = this.#source.keyRange?.(this.path) ?? this.#source.locate(this.path);
      this.#ref = Object.freeze({
        selector: this.#selector,
        file: this.#source.file,
        line: range?.start.line ?? null,
        column: range?.start.column ?? null,
      });
    }
    return this.#ref;
  }
}

class ToolEntry extends Entry implements CompiledRule {
  readonly kind = 'tool' as const;
  readonly reason?: string;
  constructor(
    source: SourceDocument,
    readonly selector: string,
    readonly pattern: string,
    readonly decision: Decision,
    reason: string | undefined,
    readonly specificity: number,
    readonly isGlob: boolean,
    readonly prefix: string,
    readonly order: number,
    path: JsonPath,
    readonly match: (name: string) => boolean,
  ) {
    super(source, selector, path);
    if (reason !== undefined) this.reason = reason;
  }
}

class EffectEntry extends Entry implements CompiledEffect {
  readonly kind = 'effect' as const;
  readonly reason?: string;
  constructor(
    source: SourceDocument,
    readonly hint: HintName,
    readonly decision: Decision,
    reason: string | undefined,
  ) {
    super(source, `effects.${hint}`, ['effects', hint]);
    if (reason !== undefined) this.reason = reason;
  }
}

class DefaultEntry extends Entry implements CompiledDefault {
  readonly kind = 'default' as const;
  constructor(
    source: SourceDocument,
    readonly decision: Decision,
  ) {
    super(source, 'default', ['default']);
  }
}

/** Options of {@link resolveInDocument}. */
export interface ResolveOptions {
  /** Entries to ignore, for "what would this decide without that rule" (lint). */
  skip?: (entry: CompiledEntry) => boolean;
}

/**
 * Resolves a tool within one document.
 * @param hints the tool's hints; MCP defaults apply to absent ones
 * @returns the document's decision with its rule and reason, or undefined when the document abstains
 */
export function resolveInDocument(
  doc: CompiledDocument,
  name: string,
  hints?: Hints | EffectiveHints,
  options: ResolveOptions = {},
): DecideResult | undefined {
  const skip = options.skip;
  const exact = doc.exact.get(name);
  if (exact) {
    const winner = pick(skip ? exact.filter((r) => !skip(r)) : exact);
    if (winner) return result(winner);
  }
  // Only globs whose literal prefix starts the name can match: one map lookup per distinct prefix length.
  let best: CompiledRule | undefined;
  for (const length of doc.prefixLengths) {
    if (length > name.length) break;
    const candidates = doc.globsByPrefix.get(length === name.length ? name : name.slice(0, length));
    if (!candidates) continue;
    for (const rule of candidates) {
      if ((best && !outranks(rule, best)) || skip?.(rule) || !rule.match(name)) continue;
      best = rule;
    }
  }
  if (best) return result(best);
  const h = effectiveHints(hints);
  let effect: CompiledEffect | undefined;
  for (const e of doc.effects) {
    if (!h[e.hint] || skip?.(e)) continue;
    if (!effect || compareRestrictiveness(e.decision, effect.decision) > 0) effect = e;
  }
  if (effect) return result(effect);
  if (doc.default && !skip?.(doc.default)) return { decision: doc.default.decision, rule: doc.default.ref };
  return undefined;
}

/** Whether glob `a` beats `b`: more specific; then more restrictive; then first in document order. */
function outranks(a: CompiledRule, b: CompiledRule): boolean {
  if (a.specificity !== b.specificity) return a.specificity > b.specificity;
  const r = compareRestrictiveness(a.decision, b.decision);
  return r !== 0 ? r > 0 : a.order < b.order;
}

/** The most restrictive entry; the first in the list among equals. */
function pick<T extends { decision: Decision }>(list: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const x of list) if (!best || compareRestrictiveness(x.decision, best.decision) > 0) best = x;
  return best;
}

function result(entry: CompiledRule | CompiledEffect): DecideResult {
  return entry.reason === undefined
    ? { decision: entry.decision, rule: entry.ref }
    : { decision: entry.decision, reason: entry.reason, rule: entry.ref };
}
