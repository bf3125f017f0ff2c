/**
 * Deciding one call by its name and its arguments (`decideCall`), over a compiled policy's documents.
 *
 * Name first: in each document the name-level resolution picks the rule. A rule with argument patterns judges
 * the call's subjects (each simple command of a script, or the path); the call gets the most restrictive of their
 * decisions. A subject the rule abstains on (no pattern matched and the rule has no base) is left to the rest of
 * the document, resolved as if that rule were absent, and combined most restrictively. A document that leaves some
 * subject undecided does not decide the call on its own. Across documents the ceiling holds per call: the most
 * restrictive document answer wins (the first in load order among equals), and a call that no document decides
 * completely is denied by the default rule.
 *
 * A policy with no argument rules at all answers `decide(name, hints)`: one memoised lookup, no parsing.
 * @module
 */
import { DEFAULT_DENY_RULE, effectiveHints, pickInDocument, RESTRICTIVENESS } from './document.js';
import { Table, type JudgeContext } from './argument-tables.js';
import { lexicalPathResolver } from './paths.js';
import type {
  CallDecision,
  CallInput,
  CommandDecision,
  CompiledDocument,
  DecideCallOptions,
  CompiledEntry,
  CompiledPolicy,
  Decision,
  DecideResult,
  EffectiveHints,
  Hints,
  ProgramCheck,
  RuleRef,
  SubjectVerdict,
} from './types.js';

export type { CallDecision, CallInput, CommandDecision, DecideCallOptions } from './types.js';

const DEFAULT_DENY: CallDecision = Object.freeze({ decision: 'deny', rule: DEFAULT_DENY_RULE });
const LEXICAL = lexicalPathResolver();
const withArguments = new WeakMap<readonly CompiledDocument[], boolean>();

/**
 * Whether any document of the policy has argument patterns (then calls go through {@link decideCall}).
 * @returns true when some rule has `commands` or `paths`
 */
export function hasArgumentRules(policy: CompiledPolicy): boolean {
  const docs = policy.documents;
  if (docs === undefined) return false;
  let known = withArguments.get(docs);
  if (known === undefined) {
    known = docs.some(documentHasArguments);
    withArguments.set(docs, known);
  }
  return known;
}

// Per document too: lint composes every prefix of a mode, and each prefix is a new documents array.
const documentWithArguments = new WeakMap<CompiledDocument, boolean>();

/**
 * Whether one compiled document has a rule with `commands` or `paths` (memoised per document).
 * @returns true when some rule has argument patterns
 */
export function documentHasArguments(doc: CompiledDocument): boolean {
  let known = documentWithArguments.get(doc);
  if (known === undefined) {
    known = doc.rules.some((r) => r.arguments !== undefined);
    documentWithArguments.set(doc, known);
  }
  return known;
}

/**
 * Whether a call's arguments can change its decision in this policy: false when no document's deciding rule for
 * the name (with these hints) has `commands` or `paths` patterns, so the decision by name is the whole answer and
 * a caller may memoise it per (name, hints).
 * @returns true when some document decides the tool by a rule with argument patterns
 */
export function dependsOnArguments(policy: CompiledPolicy, name: string, hints?: Hints): boolean {
  if (!hasArgumentRules(policy)) return false;
  const effective = effectiveHints(hints);
  for (const doc of policy.documents!) {
    const entry = pickInDocument(doc, name, effective);
    if (entry !== undefined && entry.kind === 'tool' && entry.arguments !== undefined) return true;
  }
  return false;
}

/**
 * Decides one call in one compiled mode, by name and arguments.
 * @param policy the compiled mode (`documents` set, as `compilePolicies` makes it)
 * @returns the decision, its rule, and the subject and pattern when arguments decided
 */
export function decideCall(
  policy: CompiledPolicy,
  call: CallInput,
  options: DecideCallOptions = {},
): CallDecision {
  if (!hasArgumentRules(policy)) return policy.decide(call.name, call.hints);
  const context: CallContext = {
    resolvePath: options.resolvePath ?? LEXICAL,
    tool: call.name,
    checkProgram: options.checkProgram,
  };
  const hints = effectiveHints(call.hints);
  let best: CallDecision | undefined;
  let complete = false;
  for (const doc of policy.documents!) {
    const r = resolveCall(doc, call, hints, context, new Set());
    if (r.complete) complete = true;
    if (r.best && (!best || rank(r.best.decision) > rank(best.decision))) best = r.best;
  }
  if (!complete && (!best || best.decision !== 'deny')) return DEFAULT_DENY;
  return best ?? DEFAULT_DENY;
}

interface CallContext extends JudgeContext {
  readonly checkProgram: ProgramCheck | undefined;
}

interface DocumentAnswer {
  best?: CallDecision;
  /** Whether the document decided every subject of the call. */
  complete: boolean;
}

function resolveCall(
  doc: CompiledDocument,
  call: CallInput,
  hints: EffectiveHints,
  context: CallContext,
  skip: ReadonlySet<CompiledEntry>,
): DocumentAnswer {
  const entry = pickInDocument(doc, call.name, hints, skip.size === 0 ? {} : { skip: (e) => skip.has(e) });
  if (entry === undefined) return { complete: false };
  if (entry.kind !== 'tool' || entry.arguments === undefined) {
    const plain: CallDecision = { decision: entry.decision, rule: entry.ref };
    if (entry.kind !== 'default' && entry.reason !== undefined) plain.reason = entry.reason;
    return { best: plain, complete: true };
  }
  const verdicts: SubjectVerdict[] = [];
  const scriptVerdicts: SubjectVerdict[] = [];
  for (const table of entry.arguments) {
    if (!(table instanceof Table)) continue;
    for (let v of table.judge(call.arguments, context)) {
      if (v.program !== undefined) v = checked(v, v.program, context.checkProgram);
      verdicts.push(v);
      if (table.kind === 'commands') scriptVerdicts.push(v);
    }
  }
  let best: CallDecision | undefined;
  for (const v of verdicts) {
    if (v.decision === undefined || (best && rank(v.decision) <= rank(best.decision))) continue;
    best = fromSubject(entry.ref, entry.reason, v, v.decision);
  }
  let complete = true;
  let rest: DocumentAnswer | undefined;
  if (verdicts.some((v) => v.abstains)) {
    rest = resolveCall(doc, call, hints, context, new Set([...skip, entry]));
    complete = rest.complete;
    if (rest.best && (!best || rank(rest.best.decision) > rank(best.decision))) best = rest.best;
  }
  if (best && scriptVerdicts.length > 0) {
    best = {
      ...best,
      commands: scriptVerdicts.map((v) => commandOf(entry.ref, v, rest)),
    };
  }
  return best ? { best, complete } : { complete };
}

/** A pattern's allow or ask for a configured program, unless the workspace check withholds it (then deny). */
function checked(v: SubjectVerdict, program: string, check: ProgramCheck | undefined): SubjectVerdict {
  const why = check?.(program);
  if (why === undefined) return v;
  const out: SubjectVerdict = {
    subject: v.subject,
    decision: 'deny',
    abstains: false,
    note: why,
    withheld: true,
  };
  return v.pattern === undefined ? out : { ...out, pattern: v.pattern };
}

function fromSubject(
  rule: RuleRef,
  ruleReason: string | undefined,
  v: SubjectVerdict,
  decision: Decision,
): CallDecision {
  const out: CallDecision = { decision, rule, subject: v.subject };
  // A withheld allow's own reason (if it has one) explains the allow, not the deny.
  const reason = v.withheld ? ruleReason : (v.pattern?.reason ?? ruleReason);
  if (reason !== undefined) out.reason = reason;
  if (v.pattern) out.pattern = v.pattern.ref;
  if (v.note !== undefined) out.note = v.note;
  if (v.unanalysable) out.unanalysable = true;
  if (v.withheld) out.withheld = true;
  return out;
}

function commandOf(rule: RuleRef, v: SubjectVerdict, rest: DocumentAnswer | undefined): CommandDecision {
  let decision = v.decision;
  let by = rule;
  if (v.abstains) {
    // Left to the rest of the document (or, when it abstains too, to the default deny).
    const other = rest?.complete ? rest.best : undefined;
    if (decision === undefined || (other && rank(other.decision) > rank(decision))) {
      decision = other?.decision ?? 'deny';
      by = other?.rule ?? DEFAULT_DENY_RULE;
    }
  }
  const out: CommandDecision = { text: v.subject, decision: decision ?? 'deny', rule: by };
  if (v.pattern && by === rule) out.pattern = v.pattern.ref;
  if (v.note !== undefined) out.note = v.note;
  return out;
}

function rank(d: Decision): number {
  return RESTRICTIVENESS[d];
}
