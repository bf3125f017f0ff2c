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
import type { ToolCatalogEntry } from '../../catalog/catalog.js';
import type { SelectorAlternative } from '../../language/glob.js';
import type {
  ArgumentTable,
  CompiledPolicy,
  Decision,
  JsonPath,
  RuleRef,
  Severity,
  SourceDocument,
} from '../../types.js';

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

/**
 * Which documents of the checked document's mode a composition takes, in load order and from the last
 * `override: true` on, as the compiler composes them:
 * - `before`: the documents before this one (none when it opens its mode or is an `override`);
 * - `upTo`: those and this one, the mode as the document's inline tests see it;
 * - `mode`: every document of the mode, the mode as it is compiled;
 * - `alone`: this document alone.
 */
export type Scope = 'before' | 'upTo' | 'mode' | 'alone';

/**
 * "Without this entry": the checked document with one `tools` or `effects` entry removed. Only `names` are
 * asked of the result, so the document is compiled with just the selectors that match one of them: resolution
 * reads no other selector for those names.
 */
export interface Without {
  /** The entry's JSON path: `['tools', selector]` or `['effects', hint]`. */
  entry: JsonPath;
  /** The tool names the composition will be asked about; it may answer other names wrongly. */
  names: readonly string[];
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
 * What a rule sees of the document it checks (ESLint's `context`: the source, the options, the report function).
 * Lint calls `check(context, report)` once per loaded document, in load order.
 */
export interface RuleContext {
  /** The document under check: its file, its parsed `document`, and position lookups for its JSON paths. */
  readonly source: LintDocument;
  /**
   * The documents that name this document's mode, in load order, `source` among them: a mode-level rule reports
   * once, on the last.
   */
  readonly modeDocuments: readonly LintDocument[];
  /** The catalog given with `--tools`, if any. */
  readonly catalog: readonly ToolCatalogEntry[] | undefined;
  /** True for the built-in `plan.yaml`, which users cannot edit (catalog findings skip it). */
  readonly isBuiltin: boolean;
  /** The `tools` rules of this document (or of another of its mode), each selector parsed into its alternatives. */
  selectors(document?: LintDocument): readonly SelectorRule[];
  /** The rules of this document with `commands:` or `paths:`, in document order (one per selector). */
  argumentRules(): readonly ArgumentRule[];
  /**
   * The mode composed from the documents of `scope`, as `compilePolicies` composes them (memoised `decide`;
   * `decideCall` from `call.ts` decides calls with arguments). `before` is undefined when no document precedes
   * this one in its composition. With `without`, this document is composed with that entry removed.
   */
  compose(scope: 'before'): CompiledPolicy | undefined;
  compose(scope: 'upTo' | 'mode' | 'alone', without?: Without): CompiledPolicy;
  /** The JSON path in this document of the rule a decision names, or undefined when it is not in this document. */
  pathOf(rule: RuleRef): JsonPath | undefined;
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
