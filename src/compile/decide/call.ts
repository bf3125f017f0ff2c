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
 * A policy with no argument rules answers `decide(name, hints)`, its one memo. Otherwise every call is decided
 * afresh here, from the compiled tables: nothing below it is memoised.
 * @module
 */
import { DEFAULT_DENY_RULE, effectiveHints, pickInDocument } from './document.js';
import { compareRestrictiveness } from './restrictiveness.js';
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
  EffectiveHints,
  Hints,
  ProgramCheck,
  RuleRef,
  SubjectVerdict,
} from '../types.js';

export type { CallDecision, CallInput, CommandDecision, DecideCallOptions } from '../types.js';

const DEFAULT_DENY: CallDecision = Object.freeze({ decision: 'deny', rule: DEFAULT_DENY_RULE });
const LEXICAL = lexicalPathResolver();

/**
 * Whether any document of the policy has argument patterns (then calls go through {@link decideCall}).
 * @returns true when some rule has `commands` or `paths`
 */
export function hasArgumentRules(policy: CompiledPolicy): boolean {
  return policy.documents?.some((d) => d.hasArguments) ?? false;
}

/**
 * Whether a call's arguments can change its decision in this policy: false when no document's deciding rule for
 * the name (with these hints) has `commands` or `paths` patterns, so the decision by name is the whole answer.
 * @returns true when some document decides the tool by a rule with argument patterns
 */
export function dependsOnArguments(
  policy: CompiledPolicy,
  name: string,
  hints: Hints | undefined = policy.hintsOf?.(name),
): boolean {
  if (!hasArgumentRules(policy)) return false;
  const effective = effectiveHints(hints);
  for (const doc of policy.documents!) {
    const entry = pickInDocument(doc, name, effective);
    if (entry !== undefined && entry.kind === 'tool' && entry.arguments !== undefined) return true;
  }
  return false;
}

/**
 * Decides one call in one compiled mode, by name and arguments: every document resolves the call, and the ceiling
 * holds across them.
 * @param policy the compiled mode (`documents` set, as `compilePolicies` makes it)
 * @returns the decision, its rule, and the subject and pattern when arguments decided
 */
export function decideCall(
  policy: CompiledPolicy,
  call: CallInput,
  options?: DecideCallOptions,
): CallDecision {
  const docs = policy.documents;
  if (docs === undefined || !docs.some((d) => d.hasArguments)) return policy.decide(call.name, call.hints);
  const context: CallContext = {
    resolvePath: options?.resolvePath ?? LEXICAL,
    tool: call.name,
    checkProgram: options?.checkProgram,
  };
  // A call that declares no hints is the catalogued tool of its name (the policy's catalog).
  const hints = effectiveHints(call.hints ?? policy.hintsOf?.(call.name));
  let best: CallDecision | undefined;
  let complete = false;
  for (const doc of docs) {
    const r = resolveCall(doc, call, hints, context, NOTHING_SKIPPED);
    if (r.complete) complete = true;
    if (r.best && (!best || compareRestrictiveness(r.best.decision, best.decision) > 0)) best = r.best;
  }
  return !complete && (!best || best.decision !== 'deny') ? DEFAULT_DENY : (best ?? DEFAULT_DENY);
}

interface CallContext extends JudgeContext {
  readonly checkProgram: ProgramCheck | undefined;
  /** What the check answered for each program, asked once per call. */
  answers?: Map<string, string | undefined>;
}

interface DocumentAnswer {
  best?: CallDecision;
  /** Whether the document decided every subject of the call. */
  complete: boolean;
}

const NO_OPTIONS = {};
const NOTHING_SKIPPED: ReadonlySet<CompiledEntry> = new Set();

function resolveCall(
  doc: CompiledDocument,
  call: CallInput,
  hints: EffectiveHints,
  context: CallContext,
  skip: ReadonlySet<CompiledEntry>,
): DocumentAnswer {
  const entry = pickInDocument(
    doc,
    call.name,
    hints,
    skip.size === 0 ? NO_OPTIONS : { skip: (e) => skip.has(e) },
  );
  if (entry === undefined) return { complete: false };
  if (entry.kind !== 'tool' || entry.arguments === undefined) {
    const plain: CallDecision = { decision: entry.decision, rule: entry.ref };
    if (entry.kind !== 'default' && entry.reason !== undefined) plain.reason = entry.reason;
    return { best: plain, complete: true };
  }
  // Each table judges its argument; with a workspace check, a configured program's allow or ask may be withheld
  // (one question per program for the whole call, however many of its commands and documents run it).
  const check = context.checkProgram;
  const ask: ProgramCheck | undefined =
    check === undefined
      ? undefined
      : (program) => {
          const answers = (context.answers ??= new Map());
          if (!answers.has(program)) answers.set(program, check(program));
          return answers.get(program);
        };
  const verdicts: SubjectVerdict[] = [];
  const scriptVerdicts: SubjectVerdict[] = [];
  for (const table of entry.arguments) {
    if (!(table instanceof Table)) continue;
    for (const judged of table.judge(call.arguments, context)) {
      const v =
        ask === undefined || judged.program === undefined
          ? judged
          : checkedVerdict(judged, judged.program, ask);
      verdicts.push(v);
      if (table.kind === 'commands') scriptVerdicts.push(v);
    }
  }
  // The first of the most restrictive decided subjects decides; any abstention leaves the rest to the document.
  let top: SubjectVerdict | undefined;
  let abstains = false;
  for (const v of verdicts) {
    if (v.abstains) abstains = true;
    if (v.decision === undefined || (top && compareRestrictiveness(v.decision, top.decision!) <= 0)) continue;
    top = v;
  }
  // The rule's own reason explains its base decision: an allowed `ls` under `decision: deny, reason: no shell`
  // must not say "no shell". A pattern's own reason always explains what it decides.
  const inherited = top !== undefined && top.decision === entry.decision ? entry.reason : undefined;
  let best = top === undefined ? undefined : fromSubject(entry.ref, inherited, top, top.decision!);
  let complete = true;
  let rest: DocumentAnswer | undefined;
  if (abstains) {
    rest = resolveCall(doc, call, hints, context, new Set([...skip, entry]));
    complete = rest.complete;
    if (rest.best && (!best || compareRestrictiveness(rest.best.decision, best.decision) > 0)) {
      best = rest.best;
      // The rest of the document decided for a command or path this rule has no pattern for: name it, so the
      // reason quotes it (`"rm x" matches no pattern of \`bash\``) instead of naming only the default.
      if (best.subject === undefined) unmatchedSubject(best, entry.ref, verdicts);
    }
  }
  if (best && scriptVerdicts.length > 0) {
    // `best` is this call's own object (made here or by the nested resolveCall), so it takes the commands as is.
    best.commands = scriptVerdicts.map((v) => commandOf(entry.ref, v, rest));
  }
  return best ? { best, complete } : { complete };
}

/** Names on `decision` (this call's own object) the first subject `rule` abstained on, and the rule it missed. */
function unmatchedSubject(decision: CallDecision, rule: RuleRef, verdicts: readonly SubjectVerdict[]): void {
  for (const v of verdicts) {
    if (!v.abstains) continue;
    decision.subject = v.subject;
    decision.unmatched = rule;
    if (v.note !== undefined) decision.note = v.note;
    if (v.unanalysable) decision.unanalysable = true;
    return;
  }
}

/** A pattern's allow or ask for a configured program, unless the workspace check withholds it (then deny). */
function checkedVerdict(v: SubjectVerdict, program: string, check: ProgramCheck): SubjectVerdict {
  const why = check(program);
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
    if (decision === undefined || (other && compareRestrictiveness(other.decision, decision) > 0)) {
      decision = other?.decision ?? 'deny';
      by = other?.rule ?? DEFAULT_DENY_RULE;
    }
  }
  const out: CommandDecision = { text: v.subject, decision: decision ?? 'deny', rule: by };
  if (v.pattern !== undefined && by === rule) out.pattern = v.pattern.ref;
  if (v.note !== undefined) out.note = v.note;
  return out;
}
