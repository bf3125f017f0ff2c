/**
 * Compiling one validated document into resolution tables, and resolving a tool within one document.
 *
 * Resolution (the policy language, docs/reference/policy-language.md, never dependent on key order for the
 * decision): exact name → the most specific matching glob → `effects` (most restrictive among the hints that are
 * true) → `default` → abstain. Equal
 * candidates that disagree resolve to the most restrictive (deny > ask > allow); among agreeing ones the first in
 * document order (effects: canonical hint order) is reported. Pure: no I/O.
 * @module
 */
import { compileArgumentTables, type Table } from './argument-tables.js';
import { parseSelector } from '../language/glob.js';
import { compareRestrictiveness, RESTRICTIVENESS } from './restrictiveness.js';
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
} from '../types.js';
import type { RuleValue, ToolRuleValue } from '../language/schema-types.generated.js';
import type { SelectorAlternative } from '../language/glob.js';

/** The rule reported when no document of the mode decides. */
export const DEFAULT_DENY_RULE: RuleRef = Object.freeze({
  selector: 'default',
  file: null,
  line: null,
  column: null,
});

/** The hints in canonical order. */
export const HINT_NAMES: readonly HintName[] = ['readOnly', 'destructive', 'idempotent', 'openWorld'];

export { compareRestrictiveness, mostRestrictive, RESTRICTIVENESS } from './restrictiveness.js';

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
 * The key of a call's effective hints (bit 1 readOnly, 2 destructive, 4 idempotent, 8 openWorld), as
 * {@link effectiveHints} sets them, for the policy's memo: calls whose hints take the same effective values share
 * their decision.
 * @returns a number from 0 to 15
 */
export function hintsKey(hints?: Hints): number {
  const readOnly = hints?.readOnly === true;
  const destructive = typeof hints?.destructive === 'boolean' ? hints.destructive : !readOnly;
  const openWorld = typeof hints?.openWorld === 'boolean' ? hints.openWorld : true;
  return (
    (readOnly ? 1 : 0) | (destructive ? 2 : 0) | (hints?.idempotent === true ? 4 : 0) | (openWorld ? 8 : 0)
  );
}

/**
 * Compiles one document: parses its selectors, splits exact names from globs and orders globs by specificity.
 * Invalid selectors are recorded in `selectorErrors` and keep what they can still match. Nothing is kept between
 * calls: a document compiles from what it holds now.
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
    const parsed = parseSelector(selector);
    if (parsed.error) selectorErrors.push({ selector, path: ['tools', selector], error: parsed.error });
    const { decision, reason, base } = toolVerdict(value);
    // One set of tables per selector: its brace alternatives share the patterns.
    const tables = typeof value === 'string' ? NO_TABLES : compileArgumentTables(source, selector, value);
    const extra: ToolExtra = {
      reason,
      arguments: tables.length > 0 ? tables : undefined,
      hasBase: base !== undefined,
    };
    for (const alt of parsed.alternatives) {
      const rule = new ToolEntry(source, selector, alt, decision, order, extra);
      rules.push(rule);
      if (alt.name === undefined) continue;
      const list = exact.get(alt.name);
      if (list === undefined) exact.set(alt.name, [rule]);
      else list.push(rule);
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
    hasArguments: rules.some((r) => r.arguments !== undefined),
    ...(doc.default === undefined ? {} : { default: new DefaultEntry(source, doc.default) }),
  };
  return compiled;
}

/**
 * A tool rule's name-level decision, its reason and its base. Without a base the name-level decision is the
 * least restrictive of its patterns (what the most permissive call could get from it).
 * @returns the decision, the reason and the base when written
 */
export function toolVerdict(value: ToolRuleValue): { decision: Decision; reason?: string; base?: Decision } {
  if (typeof value === 'string') return { decision: value, base: value };
  let decision = value.decision;
  if (decision === undefined) {
    for (const map of [value.commands, value.paths]) {
      for (const v of Object.values(map ?? {})) {
        const d = typeof v === 'string' ? v : v.decision;
        if (decision === undefined || RESTRICTIVENESS[d] < RESTRICTIVENESS[decision]) decision = d;
      }
    }
  }
  const out: { decision: Decision; reason?: string; base?: Decision } = { decision: decision ?? 'deny' };
  if (value.reason !== undefined) out.reason = value.reason;
  if (value.decision !== undefined) out.base = value.decision;
  return out;
}

function verdict(value: RuleValue): { decision: Decision; reason?: string } {
  if (typeof value === 'string') return { decision: value };
  return value.reason === undefined
    ? { decision: value.decision }
    : { decision: value.decision, reason: value.reason };
}

/**
 * An entry whose `ref` is located on first use: most rules are never reported, and locating one reads the file's
 * positions.
 */
abstract class Entry {
  #ref: RuleRef | undefined;
  readonly #source: SourceDocument;

  constructor(source: SourceDocument) {
    this.#source = source;
  }

  /** The JSON path of the entry in its document. */
  abstract get path(): JsonPath;
  /** The selector its `ref` names. */
  protected abstract get refSelector(): string;

  get ref(): RuleRef {
    if (!this.#ref) {
      const path = this.path;
      const range = this.#source.keyRange?.(path) ?? this.#source.locate(path);
      this.#ref = Object.freeze({
        selector: this.refSelector,
        file: this.#source.file,
        line: range?.start.line ?? null,
        column: range?.start.column ?? null,
      });
    }
    return this.#ref;
  }
}

const NO_TABLES: readonly Table[] = Object.freeze([]);

/** What a selector's alternatives share: its reason, its argument tables, and whether it has a base. */
interface ToolExtra {
  readonly reason: string | undefined;
  readonly arguments: readonly Table[] | undefined;
  readonly hasBase: boolean;
}

class ToolEntry extends Entry implements CompiledRule {
  readonly kind = 'tool' as const;
  readonly pattern: string;
  readonly specificity: number;
  readonly prefix: string;
  readonly name: string | undefined;
  /** Private, so that two compilations of one rule compare equal field by field. */
  readonly #match: (name: string) => boolean;
  readonly #extra: ToolExtra;
  constructor(
    source: SourceDocument,
    readonly selector: string,
    alt: SelectorAlternative,
    readonly decision: Decision,
    readonly order: number,
    extra: ToolExtra,
  ) {
    super(source);
    this.pattern = alt.pattern;
    this.specificity = alt.specificity;
    this.prefix = alt.prefix ?? '';
    this.name = alt.name;
    this.#match = alt.match;
    this.#extra = extra;
  }

  get isGlob(): boolean {
    return this.name === undefined;
  }

  match(name: string): boolean {
    return this.#match(name);
  }

  get path(): JsonPath {
    return ['tools', this.selector];
  }

  protected get refSelector(): string {
    return this.selector;
  }

  get reason(): string | undefined {
    return this.#extra.reason;
  }

  /** The decision when the rule has a base (a written decision, or a string rule). */
  get base(): Decision | undefined {
    return this.#extra.hasBase ? this.decision : undefined;
  }

  get arguments(): readonly Table[] | undefined {
    return this.#extra.arguments;
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
    super(source);
    if (reason !== undefined) this.reason = reason;
  }

  get path(): JsonPath {
    return ['effects', this.hint];
  }

  protected get refSelector(): string {
    return `effects.${this.hint}`;
  }
}

class DefaultEntry extends Entry implements CompiledDefault {
  readonly kind = 'default' as const;
  constructor(
    source: SourceDocument,
    readonly decision: Decision,
  ) {
    super(source);
  }

  get path(): JsonPath {
    return ['default'];
  }

  protected get refSelector(): string {
    return 'default';
  }
}

/** Options of {@link resolveInDocument}. */
export interface ResolveOptions {
  /** Entries to ignore, for "what would this decide without that rule" (lint). */
  skip?: (entry: CompiledEntry) => boolean;
}

/**
 * Resolves a tool within one document, by name: what any call to it can get at most. A rule with argument
 * patterns answers the least restrictive of its patterns and its base (for a rule without a base: the rest of the
 * document, or its allowing patterns when the rest abstains), so visibility is "some call may pass";
 * `decideCall` applies the patterns to a call.
 * @param hints the tool's hints; MCP defaults apply to absent ones
 * @returns the document's decision with its rule and reason, or undefined when the document abstains
 */
export function resolveInDocument(
  doc: CompiledDocument,
  name: string,
  hints?: Hints | EffectiveHints,
  options: ResolveOptions = {},
): DecideResult | undefined {
  const entry = pickInDocument(doc, name, hints, options);
  if (entry === undefined) return undefined;
  if (entry.kind === 'default') return { decision: entry.decision, rule: entry.ref };
  if (entry.kind === 'tool' && entry.arguments !== undefined)
    return envelope(doc, entry, name, hints, options);
  return result(entry);
}

/**
 * The decision alone of {@link resolveInDocument}: the same entry picked, the same envelope for argument rules,
 * but no result object and no rule reference (locating a rule in its file costs more than resolving it), for
 * lint's probes, which compare decisions only.
 * @param hints the tool's hints; MCP defaults apply to absent ones
 * @returns the document's decision, or undefined when the document abstains
 */
export function decisionInDocument(
  doc: CompiledDocument,
  name: string,
  hints?: Hints | EffectiveHints,
  options: ResolveOptions = {},
): Decision | undefined {
  const entry = pickInDocument(doc, name, hints, options);
  if (entry === undefined) return undefined;
  if (entry.kind === 'tool' && entry.arguments !== undefined)
    return envelopeDecision(doc, entry, name, hints, options);
  return entry.decision;
}

function envelope(
  doc: CompiledDocument,
  rule: CompiledRule,
  name: string,
  hints: Hints | EffectiveHints | undefined,
  options: ResolveOptions,
): DecideResult | undefined {
  const open = envelopeDecision(doc, rule, name, hints, options);
  if (open === undefined) return undefined;
  return rule.reason === undefined
    ? { decision: open, rule: rule.ref }
    : { decision: open, reason: rule.reason, rule: rule.ref };
}

/** The least restrictive of an argument rule's patterns and its base (or, without a base, the rest's decision). */
function envelopeDecision(
  doc: CompiledDocument,
  rule: CompiledRule,
  name: string,
  hints: Hints | EffectiveHints | undefined,
  options: ResolveOptions,
): Decision | undefined {
  const skip = options.skip;
  let open: Decision | undefined = rule.base;
  if (open === undefined) {
    open = decisionInDocument(doc, name, hints, { skip: (e) => e === rule || skip?.(e) === true });
  }
  for (const table of rule.arguments ?? []) {
    for (const p of table.patterns) {
      // With nothing else deciding, a deny pattern only narrows what other documents allow.
      if (open === undefined && p.decision === 'deny') continue;
      if (open === undefined || RESTRICTIVENESS[p.decision] < RESTRICTIVENESS[open]) open = p.decision;
    }
  }
  return open;
}

/**
 * The entry that decides a tool by name within one document: exact name → the most specific glob → `effects`
 * → `default`.
 * @returns the entry, or undefined when the document abstains
 */
export function pickInDocument(
  doc: CompiledDocument,
  name: string,
  hints?: Hints | EffectiveHints,
  options: ResolveOptions = {},
): CompiledEntry | undefined {
  return pickToolInDocument(doc, name, options.skip) ?? pickFallbackInDocument(doc, hints, options.skip);
}

/**
 * The `tools` rule that decides a name within one document, which does not depend on hints: the exact name, else
 * the most specific matching glob.
 * @returns the rule, or undefined when no selector matches (the document's fallback decides)
 */
function pickToolInDocument(
  doc: CompiledDocument,
  name: string,
  skip?: ResolveOptions['skip'],
): CompiledRule | undefined {
  const exact = doc.exact.get(name);
  const winner = exact === undefined ? undefined : pick(exact, skip);
  if (winner) return winner;
  // A glob can match only names that start with its literal prefix: only the globs filed under one of the name's
  // own prefixes are tried, so a lookup does not grow with the document's other globs.
  let best: CompiledRule | undefined;
  for (const length of doc.prefixLengths) {
    if (length > name.length) break;
    const candidates = doc.globsByPrefix.get(name.slice(0, length));
    if (candidates === undefined) continue;
    for (const rule of candidates) {
      if ((best && !outranks(rule, best)) || skip?.(rule) || !rule.match(name)) continue;
      best = rule;
    }
  }
  return best;
}

/**
 * What decides, within one document, a name no selector matches: the most restrictive `effects` entry whose
 * hint is true, else `default`.
 * @param hints the tool's hints; MCP defaults apply to absent ones
 * @returns the entry, or undefined when the document abstains
 */
function pickFallbackInDocument(
  doc: CompiledDocument,
  hints?: Hints | EffectiveHints,
  skip?: ResolveOptions['skip'],
): CompiledEffect | CompiledDefault | undefined {
  if (doc.effects.length > 0) {
    const effective = effectiveHints(hints);
    let effect: CompiledEffect | undefined;
    for (const e of doc.effects) {
      if (!effective[e.hint] || skip?.(e)) continue;
      if (!effect || compareRestrictiveness(e.decision, effect.decision) > 0) effect = e;
    }
    if (effect) return effect;
  }
  if (doc.default && !skip?.(doc.default)) return doc.default;
  return undefined;
}

/** Whether glob `a` beats `b`: more specific; then more restrictive; then first in document order. */
function outranks(a: CompiledRule, b: CompiledRule): boolean {
  if (a.specificity !== b.specificity) return a.specificity > b.specificity;
  const r = compareRestrictiveness(a.decision, b.decision);
  return r !== 0 ? r > 0 : a.order < b.order;
}

/** The most restrictive entry not skipped; the first in the list among equals. */
function pick<T extends CompiledEntry>(list: readonly T[], skip?: (entry: T) => boolean): T | undefined {
  let best: T | undefined;
  for (const x of list) {
    if ((!best || compareRestrictiveness(x.decision, best.decision) > 0) && skip?.(x) !== true) best = x;
  }
  return best;
}

function result(entry: CompiledRule | CompiledEffect): DecideResult {
  return entry.reason === undefined
    ? { decision: entry.decision, rule: entry.ref }
    : { decision: entry.decision, reason: entry.reason, rule: entry.ref };
}
