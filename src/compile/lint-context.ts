/**
 * Builds the {@link RuleContext} each lint rule receives: the document, its mode's other documents, parsed
 * selectors and lazily compiled compositions. This is lint's only seam to the loader, glob parser and compiler,
 * so rules never import them directly.
 *
 * Compositions follow the policy language, docs/reference/policy-language.md: a document's mode "up to and including" it is the composition of the
 * documents that name that mode, in load order, up to it (from the last `override: true` on). "Without a rule"
 * is the same ceiling with one entry of this document skipped (`resolveInDocument`'s `skip`), so probing a rule
 * costs no recompilation. Each document is compiled once per lint run, and each mode is indexed once
 * (`ModeCompositions`), so a composition's answer costs the same for the 1st and the 1,000th document of a mode.
 * @module
 */
import { composePolicy, DEFAULT_DENY_RULE } from './compile.js';
import { compileDocument, HINT_NAMES, resolveInDocument, toolVerdict } from './document.js';
import { affixFilter } from './glob-overlap.js';
import { ModeCompositions } from './lint-compose.js';
import { DocumentProbe, samePath } from './lint-probe.js';
import { isStarOnly, type SelectorAlternative } from './glob.js';
import { BUILTIN_PLAN_PATH } from './load.js';
import type { ToolCatalogEntry } from './catalog.js';
import type { ToolRuleValue } from './schema-types.generated.js';
import { decideCall } from './call.js';
import { PrefixIndex } from './prefix-index.js';
import type {
  ArgumentRule,
  IndexedAlternative,
  LintDocument,
  RuleContext,
  SelectorIndex,
  SelectorRule,
} from './rules/define.js';
import type {
  CallInput,
  CompiledDocument,
  CompiledRule,
  CompiledPolicy,
  Decision,
  DecideResult,
  Hints,
  JsonPath,
  RuleRef,
  SourceDocument,
} from './types.js';

export type { IndexedAlternative, LintDocument, SelectorAlternative, SelectorIndex, SelectorRule };

/**
 * The hint sets worth probing for documents: only `effects` read hints, so every combination of the hints the
 * documents' `effects` name (the others false), and a single set when there are no effects.
 * @param documents the documents whose `effects` matter
 * @returns explicit hint sets (no MCP defaults involved)
 */
export function hintProbes(documents: readonly SourceDocument[]): Hints[] {
  const used = HINT_NAMES.filter((h) => documents.some((d) => d.document.effects?.[h] !== undefined));
  return Array.from({ length: 1 << used.length }, (_, bits) => {
    const hints: Hints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
    used.forEach((h, k) => (hints[h] = (bits & (1 << k)) !== 0));
    return hints;
  });
}

/** A tool name no reasonable selector matches, to probe what `effects` and `default` decide. */
export const UNMATCHED_PROBE = '\u2063dsh-mode-probe\u2063';

/**
 * Creates the contexts for one lint run, one per document, sharing caches.
 * @param documents every loaded document, in load order
 * @param catalog the tool catalog, if any
 * @returns one context per document, in the same order
 */
export function createRuleContexts(
  documents: readonly LintDocument[],
  catalog: readonly ToolCatalogEntry[] | undefined,
): RuleContext[] {
  return [...ruleContexts(documents, catalog)];
}

/**
 * The contexts of {@link createRuleContexts}, made one at a time. What a context computes about its own document
 * (its selectors, their index, its probes) lives in the context, not in the run's shared caches: a runner that
 * drops each context once its rules have run lets that memory go while the lint goes on, instead of keeping every
 * document's until the end (a lint of 1,000 documents kept 100,000 selector rules alive, and every young-generation
 * collection copied them). The mode's compositions are shared by the run.
 * @param documents every loaded document, in load order
 * @param catalog the tool catalog, if any
 * @returns one context per document, in the same order
 */
export function* ruleContexts(
  documents: readonly LintDocument[],
  catalog: readonly ToolCatalogEntry[] | undefined,
): Generator<RuleContext, void, undefined> {
  const byMode = new Map<string, LintDocument[]>();
  for (const d of documents) {
    const list = byMode.get(d.document.mode) ?? [];
    list.push(d);
    byMode.set(d.document.mode, list);
  }
  const compiledDocs = new Map<LintDocument, CompiledDocument>();
  const compiled = (doc: LintDocument): CompiledDocument => {
    let c = compiledDocs.get(doc);
    if (c === undefined) compiledDocs.set(doc, (c = compileDocument(doc)));
    return c;
  };
  const probesByMode = new Map<string, Hints[]>();
  const compositions = new Map<string, ModeCompositions>();
  const compositionsOf = (mode: string): ModeCompositions => {
    let c = compositions.get(mode);
    if (c === undefined)
      compositions.set(mode, (c = new ModeCompositions(mode, byMode.get(mode)!.map(compiled))));
    return c;
  };
  for (const source of documents) {
    let probe: DocumentProbe | undefined;
    let composition: ModeCompositions | undefined;
    let selectors: SelectorRule[] | undefined;
    let index: SelectorIndex | undefined;
    const mode = source.document.mode;
    const modeDocuments = byMode.get(mode)!;
    const position = modeDocuments.indexOf(source);
    const own = (): SelectorRule[] => (selectors ??= readSelectors(compiled(source)));
    let alone: CompiledPolicy | undefined;
    let before: CompiledPolicy | null | undefined;
    const earlier = (): CompiledPolicy | null => {
      if (before !== undefined) return before;
      const docs = source.document.override === true ? [] : compositionsOf(mode).documents(position);
      return (before = docs.length === 0 ? null : composePolicy(mode, docs));
    };
    const composedUpTo = () => compositionsOf(mode).policy(position + 1);
    const composedMode = () => compositionsOf(mode).policy(modeDocuments.length);
    const decideInDocument = (name: string, hints: Hints | undefined, without?: JsonPath) =>
      resolveInDocument(
        compiled(source),
        name,
        hints,
        without ? { skip: (e) => samePath(e.path, without) } : {},
      );
    const decideUpTo = (name: string, hints: Hints | undefined, without?: JsonPath): DecideResult => {
      // Without `without`, the prefix's memoised policy answers. With it, the ceiling is resolved through the
      // mode's index with this document's entry skipped (see lint-compose.ts): no cost per earlier document.
      if (without === undefined) return composedUpTo().decide(name, hints);
      const skip = (e: { path: JsonPath }) => samePath(e.path, without);
      return (
        compositionsOf(mode).resolve(position + 1, name, hints, { position, skip }) ?? {
          decision: 'deny',
          rule: DEFAULT_DENY_RULE,
        }
      );
    };
    yield {
      source,
      documents,
      modeDocuments,
      isLastOfMode: position === modeDocuments.length - 1,
      isBuiltin: source.file === BUILTIN_PLAN_PATH,
      catalog,
      selectors: own,
      selectorIndex: () => (index ??= indexSelectors(own())),
      patternsMayRepeat: () => patternsMayRepeat(compiled(source)),
      // Another document's selectors are read afresh: only mode-level rules ask, once per document of the mode.
      selectorsOf: (doc: LintDocument) => (doc === source ? own() : readSelectors(compiled(doc))),
      composedUpTo,
      composedMode,
      decideUpTo,
      decideBefore: (name: string, hints: Hints | undefined) =>
        compositionsOf(mode).resolveBefore(position, name, hints),
      decideInDocument,
      decisionBefore: (name: string, hints: Hints | undefined) =>
        (composition ??= compositionsOf(mode)).decisionBefore(position, name, hints),
      decisionInDocument: (name: string, hints: Hints | undefined, without?: JsonPath) =>
        (probe ??= new DocumentProbe(compiled(source))).decision(name, hints, without),
      decideAlone: (name: string, hints?: Hints): DecideResult =>
        (alone ??= composePolicy(mode, [compiled(source)])).decide(name, hints),
      argumentRules: () => argumentRulesOf(compiled(source)),
      decideCallBefore: (call: CallInput) => {
        const policy = earlier();
        return policy === null ? undefined : decideCall(policy, call);
      },
      decideCallAlone: (call: CallInput) =>
        decideCall((alone ??= composePolicy(mode, [compiled(source)])), call),
      pathOf: (ref: RuleRef) => pathOfRule(source, ref),
      hintProbes: () => {
        let probes = probesByMode.get(mode);
        if (probes === undefined) probesByMode.set(mode, (probes = hintProbes(modeDocuments)));
        return probes;
      },
    } satisfies RuleContext;
  }
}

/** The rules with argument tables of a compiled document, one per selector (brace alternatives share tables). */
function argumentRulesOf(doc: CompiledDocument): ArgumentRule[] {
  const out: ArgumentRule[] = [];
  let seen: Set<string> | undefined;
  for (const r of doc.rules) {
    if (r.arguments === undefined || seen?.has(r.selector) === true) continue;
    (seen ??= new Set()).add(r.selector);
    const value = doc.source.document.tools?.[r.selector];
    const rule: ArgumentRule = {
      selector: r.selector,
      path: ['tools', r.selector],
      namesArgument: typeof value === 'object' && value.argument !== undefined,
      tables: r.arguments,
    };
    if (r.base !== undefined) rule.base = r.base;
    out.push(rule);
  }
  return out;
}

/**
 * The JSON path, in `source`, of the rule a decision names; undefined when the rule is from another document or
 * no document decided.
 */
function pathOfRule(source: LintDocument, ref: RuleRef): JsonPath | undefined {
  if (ref.file !== source.file || ref.line === null) return undefined;
  const { document } = source;
  const candidates: JsonPath[] = [];
  if (document.tools && Object.hasOwn(document.tools, ref.selector)) candidates.push(['tools', ref.selector]);
  if (ref.selector.startsWith('effects.'))
    candidates.push(['effects', ref.selector.slice('effects.'.length)]);
  if (ref.selector === 'default') candidates.push(['default']);
  return candidates.find((path) => {
    const at = source.keyRange?.(path) ?? source.locate(path);
    return at?.start.line === ref.line;
  });
}

/**
 * The `tools` rules of a compiled document, grouped back by selector (the compiler parsed them already). An
 * alternative is the compiled rule itself, unless it is a glob that takes the affix filter.
 */
function readSelectors(doc: CompiledDocument): SelectorRule[] {
  const errors =
    doc.selectorErrors.length === 0
      ? undefined
      : new Map(doc.selectorErrors.map((e) => [e.selector, e.error]));
  const tools = doc.source.document.tools ?? {};
  const compiledRules = doc.rules;
  const out: SelectorRule[] = [];
  // The compiler emits each selector's alternatives together, in `tools` key order (`order` counts selectors).
  // Only an invalid selector can have none: without errors, the selectors are read off the rules instead of
  // listing the keys of `tools` again (a big `tools` is a dictionary object, whose keys cost a sort to list).
  const keys = errors === undefined ? undefined : Object.keys(tools);
  const count = keys?.length ?? (compiledRules.length === 0 ? 0 : compiledRules.at(-1)!.order + 1);
  let next = 0;
  for (let order = 0; order < count; order++) {
    const first = next;
    while (next < compiledRules.length && compiledRules[next]!.order === order) next++;
    // Read off the rules, a selector with none would take the next one's name: loud (an internal-error finding).
    if (keys === undefined && next === first)
      throw new Error(`a valid selector compiled to no rule (#${order})`);
    const selector = keys?.[order] ?? compiledRules[first]!.selector;
    // Sized once (an array grown by `push` reserves room for many more: memory a big lint keeps to its end); a
    // selector of one alternative (most) without the intermediate slice.
    const alternatives: SelectorAlternative[] =
      next - first === 1
        ? [alternativeOf(compiledRules[first]!)]
        : compiledRules.slice(first, next).map(alternativeOf);
    // A compiled rule carries what its value says: a big `tools` is a dictionary object, costly to look up in.
    const rule =
      next > first
        ? selectorRuleOf(selector, compiledRules[first]!, alternatives)
        : selectorRuleOfValue(selector, tools[selector]!, alternatives);
    const error = errors?.get(selector);
    if (error !== undefined) rule.error = error;
    out.push(rule);
  }
  return out;
}

/**
 * A selector as lint sees it, from one of its compiled rules: their decision is the value's (`toolVerdict`), their
 * reason the value's, and they have argument tables exactly when the value has `commands` or `paths`.
 */
function selectorRuleOf(
  selector: string,
  compiled: CompiledRule,
  alternatives: SelectorAlternative[],
): SelectorRule {
  const rule: SelectorRule = {
    selector,
    decision: compiled.decision,
    path: ['tools', selector],
    alternatives,
  };
  if (compiled.reason !== undefined) rule.reason = compiled.reason;
  if (compiled.arguments !== undefined) rule.byArguments = true;
  return rule;
}

/** A selector as lint sees it, from its value: for one that compiled to no rule (an invalid selector). */
function selectorRuleOfValue(
  selector: string,
  value: ToolRuleValue,
  alternatives: SelectorAlternative[],
): SelectorRule {
  if (typeof value === 'string')
    return { selector, decision: value, path: ['tools', selector], alternatives };
  const rule: SelectorRule = {
    selector,
    decision: toolVerdict(value).decision,
    path: ['tools', selector],
    alternatives,
  };
  if (value.reason !== undefined) rule.reason = value.reason;
  if (value.commands !== undefined || value.paths !== undefined) rule.byArguments = true;
  return rule;
}

/** A compiled rule as a selector alternative. */
function alternativeOf(r: CompiledRule): SelectorAlternative {
  // The affix filter skips most matcher calls when lint probes many names against many globs.
  // (A pattern of literals and `*` checks its affixes itself.)
  if (!r.isGlob || isStarOnly(r.pattern)) return r;
  const could = affixFilter(r.pattern);
  return {
    pattern: r.pattern,
    specificity: r.specificity,
    isGlob: r.isGlob,
    prefix: r.prefix,
    match: could ? (n) => could(n) && r.match(n) : r.match,
  };
}

/**
 * Whether two `tools` alternatives of a compiled document may have one pattern. A pattern decides its exact name,
 * or its glob's literal prefix (`compileAlternative` in glob.ts): when no name and no prefix repeats, none does.
 */
function patternsMayRepeat(doc: CompiledDocument): boolean {
  if (doc.exact.size !== doc.rules.length - doc.globs.length) return true;
  for (const globs of doc.globsByPrefix.values()) if (globs.length > 1) return true;
  return false;
}

/** The alternatives of a document's selectors by literal prefix (exact names by the name itself). */
function indexSelectors(rules: readonly SelectorRule[]): SelectorIndex {
  const exactKeys: string[] = [];
  const exact: [SelectorAlternative[], number[]] = [[], []];
  const globKeys: string[] = [];
  const globs: [SelectorAlternative[], number[]] = [[], []];
  rules.forEach((rule, position) => {
    for (const alternative of rule.alternatives) {
      const side = alternative.name !== undefined ? exact : globs;
      (alternative.name !== undefined ? exactKeys : globKeys).push(
        alternative.name ?? alternative.prefix ?? '',
      );
      side[0].push(alternative);
      side[1].push(position);
    }
  });
  // The entries are made when a question returns them: most exact names are never returned.
  const entry =
    ([alternatives, positions]: [SelectorAlternative[], number[]]) =>
    (i: number): IndexedAlternative => ({
      alternative: alternatives[i]!,
      rule: rules[positions[i]!]!,
      position: positions[i]!,
    });
  return { exact: new PrefixIndex(exactKeys, entry(exact)), globs: new PrefixIndex(globKeys, entry(globs)) };
}
