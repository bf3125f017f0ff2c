/**
 * Lint's decision-only probes of one document: "what does this document decide for `name` with `hints`, with or
 * without one of its entries", exactly as `resolveInDocument` decides it, but without building a result or
 * locating a rule in its file, and with the part that does not depend on hints (the exact name, then the most
 * specific glob) looked up once per name instead of once per hint set.
 *
 * Why: `no-op-rule` asks every name a rule can win with every hint set, with and without the rule; a lookup costs
 * more than everything else a probe does, and most probes differ only in their hints. The memo keeps the last
 * name for each skip (one for "with", one for "without"), which is what a loop over names, then hint sets, asks.
 * @module
 */
import {
  decisionInDocument,
  hintsKey,
  pickFallbackInDocument,
  pickToolInDocument,
  type ResolveOptions,
} from './document.js';
import type { CompiledDocument, CompiledEntry, CompiledRule, Decision, Hints, JsonPath } from './types.js';

type Skip = NonNullable<ResolveOptions['skip']>;

const NO_HINTS: Hints = Object.freeze({});

/** The `tools` rule a name resolves to in one document, for one skip (none, or one entry's). */
class ToolMemo {
  name: string | undefined = undefined;
  rule: CompiledRule | undefined = undefined;
}

/** Decision-only probes of one compiled document (see the module comment). */
export class DocumentProbe {
  readonly #doc: CompiledDocument;
  readonly #with = new ToolMemo();
  readonly #without = new ToolMemo();
  #skipPath: JsonPath | undefined;
  #skip: Skip | undefined;
  /** The selector whose `tools` entries `#skipTool` skips. */
  #skipSelector: string | number | undefined;
  readonly #skipTool: Skip = (e) => e.kind === 'tool' && e.selector === this.#skipSelector;
  /**
   * The fallback's decision (`effects`, then `default`) per hint key, null when the document abstains: the same
   * with no skip and with a `tools` skip, which leaves them alone, and asked for most names probed.
   */
  readonly #fallbacks: (Decision | null | undefined)[] = [];

  constructor(doc: CompiledDocument) {
    this.#doc = doc;
  }

  /**
   * The document's decision for a tool, optionally with the entry at `without` removed: what
   * `resolveInDocument(doc, name, hints, {skip})` decides.
   * @returns the decision, or undefined when the document abstains
   */
  decision(name: string, hints: Hints | undefined, without?: JsonPath): Decision | undefined {
    const skip = without === undefined ? undefined : this.#skipOf(without);
    const memo = skip === undefined ? this.#with : this.#without;
    if (memo.name !== name) {
      memo.rule = pickToolInDocument(this.#doc, name, skip);
      memo.name = name;
    }
    const rule = memo.rule;
    if (rule === undefined) return this.#fallback(hints, skip);
    // An argument rule's name-level decision can read the rest of the document, which reads the hints.
    if (rule.arguments !== undefined)
      return decisionInDocument(this.#doc, name, hints, skip === undefined ? {} : { skip });
    return rule.decision;
  }

  /** What decides a name no `tools` rule matches (undefined: the document abstains). */
  #fallback(hints: Hints | undefined, skip: Skip | undefined): Decision | undefined {
    if (skip !== undefined && skip !== this.#skipTool)
      return pickFallbackInDocument(this.#doc, hints, skip)?.decision;
    const key = hintsKey(hints ?? NO_HINTS);
    let known = this.#fallbacks[key];
    if (known === undefined)
      this.#fallbacks[key] = known = pickFallbackInDocument(this.#doc, hints)?.decision ?? null;
    return known ?? undefined;
  }

  /** The skip for `path`, kept while the same path is asked (a rule probes many names and hint sets). */
  #skipOf(path: JsonPath): Skip {
    if (path !== this.#skipPath) {
      this.#skipPath = path;
      if (path.length === 2 && path[0] === 'tools') {
        // One skip for every `tools` key, reading the current selector: no closure per rule probed.
        this.#skipSelector = path[1];
        this.#skip = this.#skipTool;
      } else this.#skip = skipping(path);
      // The "without" memo belongs to the previous skip.
      this.#without.name = undefined;
    }
    return this.#skip!;
  }
}

/**
 * The skip of "without the entry at `path`": a `tools` key is every alternative of its selector, compared by
 * selector instead of by path (the same entries: a tool entry's path is `['tools', selector]`).
 */
export function skipping(path: JsonPath): Skip {
  if (path.length === 2 && path[0] === 'tools') {
    const selector = path[1];
    return (e: CompiledEntry) => e.kind === 'tool' && e.selector === selector;
  }
  return (e: CompiledEntry) => samePath(e.path, path);
}

/**
 * Whether two JSON paths are equal, segment by segment.
 * @returns true when they name the same node
 */
export function samePath(a: JsonPath, b: JsonPath): boolean {
  return a.length === b.length && a.every((seg, i) => seg === b[i]);
}
