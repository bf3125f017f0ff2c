/**
 * The shape of a lint rule and the context it runs in.
 *
 * A rule is one file, `rules/<id>.ts`, default-exporting `defineRule({ id, meta, check })` (the ESLint
 * model): `meta.messages` holds the wording by message id, `check(context, report)` inspects one loaded document
 * and reports JSON paths, never ranges. The runner (`../lint.ts`) maps each path to a range through the
 * document's `locate`, fills `{{slots}}` in the message and help, and sorts and dedupes the result.
 *
 * Rules never throw on user input and never do I/O; everything they need is on the context.
 * @module
 */
import type { ToolCatalogEntry } from '../catalog.js';
import type { SelectorAlternative } from '../glob.js';
import type { PrefixIndex } from '../prefix-index.js';
import type {
  ArgumentTable,
  CallDecision,
  CallInput,
  CompiledPolicy,
  Decision,
  DecideResult,
  Hints,
  JsonPath,
  RuleRef,
  Severity,
  SourceDocument,
} from '../types.js';

/** A loaded, valid document as lint sees it. */
export type LintDocument = SourceDocument;

/** One `tools` rule of a document: its selector, decision, reason, path and parsed brace alternatives. */
export interface SelectorRule {
  selector: string;
  decision: Decision;
  reason?: string;
  path: JsonPath;
  alternatives: readonly SelectorAlternative[];
  /** Set when the selector's syntax is invalid or it has too many brace alternatives. */
  error?: string;
  /** Set when the rule has `commands` or `paths`: it decides per call, which name probes cannot see. */
  byArguments?: true;
}

/** One `tools` rule with `commands:` or `paths:`, as lint sees it: its selector, its tables, and where it is. */
export interface ArgumentRule {
  selector: string;
  /** `['tools', selector]`. */
  path: JsonPath;
  /** The rule's base decision, when it has one (without, it abstains on what no pattern matches). */
  base?: Decision;
  /** Whether the rule names its argument (`argument: NAME`) rather than taking `command` or `path`. */
  namesArgument: boolean;
  tables: readonly ArgumentTable[];
}

/** One alternative of a document's selector, with its rule and that rule's position in `selectors()`. */
export interface IndexedAlternative {
  alternative: SelectorAlternative;
  rule: SelectorRule;
  position: number;
}

/**
 * A document's `tools` alternatives by literal prefix: the exact names a glob can match are
 * `exact.startingWith(glob.prefix)`, the globs that can share a name with it are `globs.compatibleWith(glob.prefix)`.
 */
export interface SelectorIndex {
  /** Plain names, keyed by the name. */
  exact: PrefixIndex<IndexedAlternative>;
  /** Globs, keyed by their literal prefix. */
  globs: PrefixIndex<IndexedAlternative>;
}

/** One message template. Text follows Cedar's rules: one lowercase sentence, no final period, values in backticks. */
export interface MessageTemplate {
  /** The finding, with `{{name}}` slots. */
  text: string;
  /** How to fix it, with `{{name}}` slots. */
  help?: string;
}

/** Documentation of a rule: one failing and one passing example, and how to fix a finding. */
export interface RuleDocs {
  /** A policy (YAML) that this rule reports. */
  failing: string;
  /** The same policy, fixed. */
  passing: string;
  /** How to fix a finding, in a sentence or two. */
  fix: string;
  /** A document of the same mode loaded before each example (`base.yaml`), for rules about composition. */
  before?: string;
}

/** What a rule reports: a message id, the slot values and the JSON path of the node concerned. */
export interface RuleReport<M extends string = string> {
  messageId: M;
  data?: Record<string, string | number>;
  path: JsonPath;
}

/**
 * Everything a rule may look at while it checks one document. Values are computed lazily and cached: what concerns
 * this document for as long as the context lives, compositions of its mode for the lint run.
 */
export interface RuleContext {
  /** The document under check, with its file and position lookup. */
  readonly source: LintDocument;
  /** Every loaded document, in load order (the built-in plan first unless disabled). */
  readonly documents: readonly LintDocument[];
  /** The documents that name this document's mode, in load order. */
  readonly modeDocuments: readonly LintDocument[];
  /** True when this is the last document of its mode: mode-level rules report once, here. */
  readonly isLastOfMode: boolean;
  /** True for the built-in `plan.yaml`, which users cannot edit (catalog findings skip it). */
  readonly isBuiltin: boolean;
  /** The catalog given with `--tools`, if any. */
  readonly catalog: readonly ToolCatalogEntry[] | undefined;
  /** The `tools` rules of this document, each selector parsed into its brace alternatives. */
  selectors(): readonly SelectorRule[];
  /** This document's selector alternatives indexed by literal prefix, built once per document. */
  selectorIndex(): SelectorIndex;
  /** Whether two of this document's selector alternatives may have the same pattern (false: none has). */
  patternsMayRepeat(): boolean;
  /** The same for another loaded document (for mode-level rules; read afresh on each call, not kept). */
  selectorsOf(document: LintDocument): readonly SelectorRule[];
  /** The mode composed from its documents up to and including this one, in load order. */
  composedUpTo(): CompiledPolicy;
  /** The mode composed from all its documents. */
  composedMode(): CompiledPolicy;
  /**
   * The mode's decision for a tool, composed up to and including this document, as it would be if this document
   * had `without` removed (a `tools` selector or an `effects` key), or unchanged when `without` is omitted.
   * Without `without` it is `composedUpTo().decide` (memoised); with it, not memoised (each probe is asked once).
   */
  decideUpTo(name: string, hints: Hints | undefined, without?: JsonPath): DecideResult;
  /**
   * The decision of the documents of this mode that compose before this one (from the last `override` on; none
   * when this document is an `override`), or undefined when none of them decides. The mode up to and including
   * this document is the ceiling of this and `decideInDocument`, this document winning only when strictly more
   * restrictive. Not memoised. Cheaper than two `decideUpTo` calls when probing "with and without" an entry.
   */
  decideBefore(name: string, hints: Hints | undefined): DecideResult | undefined;
  /** This document's own decision (undefined when it abstains), optionally with one entry removed. */
  decideInDocument(name: string, hints: Hints | undefined, without?: JsonPath): DecideResult | undefined;
  /**
   * The decision alone of `decideBefore`: no rule located, no result built, and in the common case (an earlier
   * document denies by its `effects` or `default`) a few lookups. For probes that compare decisions.
   */
  decisionBefore(name: string, hints: Hints | undefined): Decision | undefined;
  /** The decision alone of `decideInDocument`, likewise. */
  decisionInDocument(name: string, hints: Hints | undefined, without?: JsonPath): Decision | undefined;
  /** The decision of this document alone (its mode compiled from it only). */
  decideAlone(name: string, hints?: Hints): DecideResult;
  /** The rules of this document with `commands:` or `paths:`, in document order (one per selector). */
  argumentRules(): readonly ArgumentRule[];
  /**
   * How the documents of this mode that compose before this one decide a call, arguments included (paths resolve
   * lexically, with no workspace); undefined when there are none (the first document of its mode, or an
   * `override`).
   */
  decideCallBefore(call: CallInput): CallDecision | undefined;
  /** How this document alone decides a call, arguments included. */
  decideCallAlone(call: CallInput): CallDecision;
  /** The JSON path in this document of the rule a decision names, or undefined when it is not in this document. */
  pathOf(rule: RuleRef): JsonPath | undefined;
  /** The hint sets to probe this mode with: every combination of the hints its `effects` read. */
  hintProbes(): readonly Hints[];
}

/** A lint rule. `M` is the union of its message ids, so `report({ messageId })` is checked at compile time. */
export interface RuleDefinition<M extends string = string> {
  /** Stable kebab-case id, equal to the file name and the docs anchor. */
  id: string;
  meta: {
    /** One line: what the rule finds. */
    description: string;
    severity: Severity;
    messages: Record<M, MessageTemplate>;
    docs: RuleDocs;
  };
  /** Inspects one document and reports findings; called once per loaded document. */
  check(context: RuleContext, report: (finding: RuleReport<M>) => void): void;
}

/**
 * Declares a rule with its message ids inferred from `meta.messages`.
 * @param rule the rule
 * @returns the same rule, typed
 */
export function defineRule<M extends string>(rule: RuleDefinition<M>): RuleDefinition<M> {
  return rule;
}
