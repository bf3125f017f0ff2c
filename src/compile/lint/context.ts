/**
 * Builds the {@link RuleContext} each lint rule receives: lint's only seam to the compiler, so rules never
 * compile or compose documents themselves.
 *
 * Compositions are the compiler's own (`composePolicy`, the policy language, docs/reference/policy-language.md):
 * "the mode up to and including this document" is the composition of the documents that name that mode, in load
 * order, up to it, from the last `override: true` on. Each document is compiled once per lint run and each
 * prefix of a mode composed once, so a rule that asks a prefix about many names reuses its memoised `decide`.
 * "Without this entry" compiles the document again without it.
 * @module
 */
import { composePolicy } from '../decide/compile.js';
import { compileDocument, HINT_NAMES, toolVerdict } from '../decide/document.js';
import { BUILTIN_PLAN_PATH } from '../language/load.js';
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import { toolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { SelectorAlternative } from '../language/glob.js';
import type {
  ArgumentRule,
  LintDocument,
  RuleContext,
  Scope,
  SelectorRule,
  Without,
} from './rules/define.js';
import type { CompiledDocument, CompiledPolicy, Hints, JsonPath, RuleRef, SourceDocument } from '../types.js';

export type { LintDocument, SelectorAlternative, SelectorRule };

/**
 * The hint sets worth probing a mode with: only `effects` read hints, so every combination of the hints the
 * documents' `effects` name (the others false), and a single set when there are no effects.
 * @param documents the documents whose `effects` matter (a mode's)
 * @returns explicit hint sets (no MCP defaults involved)
 */
export function hintSets(documents: readonly SourceDocument[]): Hints[] {
  const used = HINT_NAMES.filter((h) => documents.some((d) => d.document.effects?.[h] !== undefined));
  return Array.from({ length: 1 << used.length }, (_, bits) => {
    const hints: Hints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
    used.forEach((h, k) => (hints[h] = (bits & (1 << k)) !== 0));
    return hints;
  });
}

/** A tool name no reasonable selector matches, to probe what `effects` and `default` decide. */
export const UNMATCHED_PROBE = '\u2063dsh-mode-probe\u2063';

/** One mode's documents in load order, each compiled once, and the composition up to each, composed once. */
class Mode {
  readonly name: string;
  readonly documents: LintDocument[] = [];
  readonly #compiled: CompiledDocument[] = [];
  /** `#starts[i]`: the position of the last `override` at or before `i`, where its composition starts. */
  readonly #starts: number[] = [];
  readonly #upTo: CompiledPolicy[] = [];
  /** The hints of calls that declare none (an inline test's): the run's tool catalog. */
  readonly catalog: ToolCatalog;

  constructor(name: string, catalog: ToolCatalog) {
    this.name = name;
    this.catalog = catalog;
  }

  add(document: LintDocument): void {
    const compiled = compileDocument(document);
    const position = this.documents.length;
    this.documents.push(document);
    this.#compiled.push(compiled);
    this.#starts.push(compiled.override || position === 0 ? position : this.#starts[position - 1]!);
  }

  /** The compiled documents that compose up to and including `position`. */
  prefix(position: number): CompiledDocument[] {
    return this.#compiled.slice(this.#starts[position], position + 1);
  }

  compiled(position: number): CompiledDocument {
    return this.#compiled[position]!;
  }

  /** The composition up to and including `position`. */
  upTo(position: number): CompiledPolicy {
    return (this.#upTo[position] ??= composePolicy(this.name, this.prefix(position), this.catalog));
  }

  /** The composition before `position`, or undefined when the document at `position` starts its own. */
  before(position: number): CompiledPolicy | undefined {
    return this.#starts[position] === position ? undefined : this.upTo(position - 1);
  }
}

/**
 * The contexts of one lint run, one per document in load order, made one at a time: what a context holds about
 * its own document (its selectors, its compositions without an entry) is garbage once its rules have run.
 * @param documents every loaded document, in load order
 * @param catalog the tool catalog, if any (the built-in tools are catalogued whatever it says)
 * @returns one context per document, in the same order
 */
export function* ruleContexts(
  documents: readonly LintDocument[],
  catalog: readonly ToolCatalogEntry[] | undefined,
): Generator<RuleContext, void, undefined> {
  const modes = new Map<string, Mode>();
  // Every composition decides a call without hints as the gate does: with the built-in tools' own annotations.
  const tools = toolCatalog(catalog);
  for (const d of documents) {
    const name = d.document.mode;
    let mode = modes.get(name);
    if (mode === undefined) modes.set(name, (mode = new Mode(name, tools)));
    mode.add(d);
  }
  // Each document is compiled once per run; a rule asking about another document reads the same compilation.
  const positions = new Map<string, number>();
  const placed = documents.map((source) => {
    const mode = modes.get(source.document.mode)!;
    const position = positions.get(mode.name) ?? 0;
    positions.set(mode.name, position + 1);
    return { source, mode, position, compiled: mode.compiled(position) };
  });
  const compiledOf = new Map(placed.map((p) => [p.source, p.compiled]));
  for (const { source, mode, position, compiled } of placed) {
    let selectors: SelectorRule[] | undefined;
    const own = () => (selectors ??= readSelectors(compiled));
    let alone: CompiledPolicy | undefined;
    const last = mode.documents.length - 1;
    /** The compiled documents of a scope, this one replaced by `edited` when given. */
    const scopeDocuments = (scope: Exclude<Scope, 'before'>, edited?: CompiledDocument) => {
      const docs = scope === 'alone' ? [compiled] : mode.prefix(scope === 'mode' ? last : position);
      return edited === undefined ? docs : docs.map((d) => (d === compiled ? edited : d));
    };
    function compose(scope: 'before'): CompiledPolicy | undefined;
    function compose(scope: Exclude<Scope, 'before'>, without?: Without): CompiledPolicy;
    function compose(scope: Scope, without?: Without): CompiledPolicy | undefined {
      if (scope === 'before') return mode.before(position);
      if (without !== undefined)
        return composePolicy(mode.name, scopeDocuments(scope, compileWithout(source, own(), without)), tools);
      if (scope === 'alone') return (alone ??= composePolicy(mode.name, [compiled], tools));
      return mode.upTo(scope === 'mode' ? last : position);
    }
    yield {
      source,
      modeDocuments: mode.documents,
      catalog,
      isBuiltin: source.file === BUILTIN_PLAN_PATH,
      selectors: (document?: LintDocument) =>
        document === undefined || document === source
          ? own()
          : readSelectors(compiledOf.get(document) ?? compileDocument(document)),
      argumentRules: () => argumentRulesOf(compiled),
      compose,
      pathOf: (ref: RuleRef) => pathOfRule(source, ref),
    } satisfies RuleContext;
  }
}

/**
 * `source` compiled without the entry `without.entry`, and without the selectors that match none of
 * `without.names`: a name is decided by the selectors that match it, then `effects` and `default`, so the result
 * decides those names as the whole document without the entry would.
 */
function compileWithout(
  source: LintDocument,
  selectors: readonly SelectorRule[],
  without: Without,
): CompiledDocument {
  const [kind, key] = without.entry;
  const { tools, effects } = source.document;
  const document = { ...source.document };
  if (tools !== undefined) {
    const kept = selectors.filter(
      ({ selector, alternatives }) =>
        !(kind === 'tools' && key === selector) &&
        alternatives.some((alt) => without.names.some((name) => alt.match(name))),
    );
    document.tools = Object.fromEntries(kept.map(({ selector }) => [selector, tools[selector]!]));
  }
  if (kind === 'effects' && effects !== undefined)
    document.effects = Object.fromEntries(Object.entries(effects).filter(([hint]) => hint !== key));
  const edited: SourceDocument = { file: source.file, document, locate: (path) => source.locate(path) };
  if (source.keyRange !== undefined) edited.keyRange = (path) => source.keyRange!(path);
  return compileDocument(edited);
}

/** The rules with argument tables of a compiled document, one per selector (brace alternatives share tables). */
function argumentRulesOf(doc: CompiledDocument): ArgumentRule[] {
  const out: ArgumentRule[] = [];
  const seen = new Set<string>();
  for (const r of doc.rules) {
    if (r.arguments === undefined || seen.has(r.selector)) continue;
    seen.add(r.selector);
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
 * The `tools` rules of a compiled document, in document order, each with its compiled alternatives (a selector's
 * position among the keys of `tools` is its rules' `order`; an invalid selector may have none).
 */
function readSelectors(doc: CompiledDocument): SelectorRule[] {
  const errors = new Map(doc.selectorErrors.map((e) => [e.selector, e.error]));
  const byOrder: SelectorAlternative[][] = [];
  for (const r of doc.rules) (byOrder[r.order] ??= []).push(r);
  return Object.entries(doc.source.document.tools ?? {}).map(([selector, value], order) => {
    const { decision, reason } = toolVerdict(value);
    const rule: SelectorRule = {
      selector,
      decision,
      path: ['tools', selector],
      alternatives: byOrder[order] ?? [],
    };
    if (reason !== undefined) rule.reason = reason;
    if (typeof value !== 'string' && (value.commands !== undefined || value.paths !== undefined))
      rule.byArguments = true;
    const error = errors.get(selector);
    if (error !== undefined) rule.error = error;
    return rule;
  });
}
