/**
 * Compiling validated documents into one {@link CompiledPolicy} per mode (the policy language, docs/reference/policy-language.md).
 *
 * Composition is a ceiling: per tool, every document of the mode resolves on its own (or abstains) and the most
 * restrictive decision wins; among equal decisions the first in load order is reported. `override: true` drops
 * every earlier document of its mode (rules, section, description). When no document decides, the tool is denied
 * by the built-in default rule `{selector: 'default', file: null, line: null, column: null}`.
 *
 * A call that declares no hints is decided with the hints of the tool catalog the policy was compiled with
 * (`../catalog/tool-catalog.ts`: the built-in tools always, with their own annotations), so every decider that
 * asks a compiled policy about `write` decides the tool the gate runs.
 *
 * Each policy memoises `decide()` per (name, effective hints) in `Map`s, bounded by {@link MEMO_LIMIT}: this is the
 * one memo of name decisions, and tool names such as `__proto__` behave like any other. Nothing on the decision
 * path does I/O.
 * @module
 */
import { decideCall } from './call.js';
import { renderSection } from './section.js';
import { composeSandbox } from './sandbox.js';
import { runsPrograms } from '../catalog/builtin-tools.js';
import { BUILTIN_CATALOG, toolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import {
  compareRestrictiveness,
  compileDocument,
  DEFAULT_DENY_RULE,
  effectiveHints,
  hintsKey,
  resolveInDocument,
} from './document.js';
import type {
  CallDecision,
  CallInput,
  CompiledDocument,
  DecideCallOptions,
  CompiledPolicy,
  DecideResult,
  EffectiveHints,
  Hints,
  RuleRef,
  SandboxSetting,
  SourceDocument,
} from '../types.js';

/** Every compiled mode of one load. */
export interface CompiledPolicySet {
  readonly modes: ReadonlyMap<string, CompiledPolicy>;
  get(mode: string): CompiledPolicy | undefined;
}

export { DEFAULT_DENY_RULE } from './document.js';
const DEFAULT_DENY: DecideResult = Object.freeze({ decision: 'deny', rule: DEFAULT_DENY_RULE });

/** Memo tables are dropped when they reach this many names, so hallucinated names cannot grow memory forever. */
export const MEMO_LIMIT = 65_536;

/**
 * Compiles documents, in load order, into one policy per mode.
 * @param options.tools the deployment's tools beyond the built-in ones (a `--tools` catalog): their hints decide
 *   a call that declares none. The reference host's built-in tools are always catalogued, with their own
 *   annotations.
 * @returns the policies by mode name (in order of first appearance)
 */
export function compilePolicies(
  documents: readonly SourceDocument[],
  options: { tools?: readonly ToolCatalogEntry[] } = {},
): CompiledPolicySet {
  const catalog = options.tools === undefined ? BUILTIN_CATALOG : toolCatalog(options.tools);
  const byMode = new Map<string, CompiledDocument[]>();
  for (const source of documents) {
    const doc = compileDocument(source);
    const list = byMode.get(doc.mode);
    // INVARIANT: `override: true` discards everything before it for that mode.
    if (!list || doc.override) byMode.set(doc.mode, [doc]);
    else list.push(doc);
  }
  const modes = new Map<string, CompiledPolicy>();
  for (const [mode, docs] of byMode) modes.set(mode, composePolicy(mode, docs, catalog));
  return { modes, get: (mode) => modes.get(mode) };
}

/**
 * Composes already compiled documents of one mode (no `override` handling: pass what should compose).
 * @param catalog the hints of calls that declare none (default: the built-in tools)
 * @returns the memoised policy
 */
export function composePolicy(
  mode: string,
  documents: readonly CompiledDocument[],
  catalog: ToolCatalog = BUILTIN_CATALOG,
): CompiledPolicy {
  return new MemoPolicy(mode, documents, catalog);
}

/**
 * The ceiling over documents, without memoisation.
 * @returns the most restrictive decision, the first in load order among equals, or the default deny
 */
export function resolveComposed(
  documents: readonly CompiledDocument[],
  name: string,
  hints?: Hints,
): DecideResult {
  const h = effectiveHints(hints);
  let best: DecideResult | undefined;
  for (const doc of documents) {
    const r = resolveInDocument(doc, name, h);
    if (r && (!best || compareRestrictiveness(r.decision, best.decision) > 0)) best = r;
  }
  return best ?? DEFAULT_DENY;
}

class MemoPolicy implements CompiledPolicy {
  readonly mode: string;
  readonly description?: string;
  readonly documents: readonly CompiledDocument[];
  readonly sandbox?: SandboxSetting;
  #section: string | undefined;
  /** Whether some rule of the mode has `commands` or `paths` (else a call is decided by its name). */
  readonly #byArguments: boolean;
  /** The one memo: decisions by name, one table per effective-hints key (see `hintsKey`). */
  readonly #memo: (Map<string, DecideResult> | undefined)[] = [];
  #size = 0;
  readonly #catalog: ToolCatalog;

  constructor(mode: string, documents: readonly CompiledDocument[], catalog: ToolCatalog) {
    this.mode = mode;
    this.#catalog = catalog;
    this.documents = Object.freeze([...documents]);
    const description = documents.find((d) => d.source.document.description !== undefined);
    if (description) this.description = description.source.document.description;
    this.#byArguments = documents.some((d) => d.hasArguments);
    const sandbox = composeSandbox(documents);
    if (sandbox) this.sandbox = sandbox;
  }

  /** The documents' sections joined, placeholders such as `{{commands bash}}` expanded from the composed rules. */
  get section(): string {
    // Rendered when first read: lint composes many policies and reads few of their sections.
    this.#section ??= renderSection(
      this.documents
        .map((d) => (d.source.document.section ?? '').trimEnd())
        .filter((s) => s.length > 0)
        .join('\n\n'),
      this.documents,
      (name, args) => this.decideCall({ name, arguments: args }).decision,
    );
    return this.#section;
  }

  hintsOf(name: string): Hints | undefined {
    return this.#catalog.hintsOf(String(name));
  }

  decide(name: string, hints: Hints | undefined = this.hintsOf(name)): DecideResult {
    const key = hintsKey(hints);
    const hit = this.#memo[key]?.get(name);
    if (hit !== undefined) return hit;
    const result = Object.freeze(resolveComposed(this.documents, String(name), hints));
    if (this.#size >= MEMO_LIMIT) {
      this.#memo.length = 0;
      this.#size = 0;
    }
    (this.#memo[key] ??= new Map()).set(name, result);
    this.#size++;
    return result;
  }

  sandboxFor(name: string): SandboxSetting | undefined {
    return runsPrograms(name) ? this.sandbox : undefined;
  }

  visible(name: string, hints?: Hints): boolean {
    return this.decide(name, hints).decision !== 'deny';
  }

  decideCall(call: CallInput, options?: DecideCallOptions): CallDecision {
    // Without argument rules in the mode, a call is its name.
    return this.#byArguments ? decideCall(this, call, options) : this.decide(call.name, call.hints);
  }
}
