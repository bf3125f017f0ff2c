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
 * A policy with no argument rules at all answers `decide(name, hints)`: one memoised lookup, no parsing. Otherwise
 * decisions are memoised per (name, hints) and then per argument text from the second time a text is seen,
 * bounded ({@link CALL_MEMO_LIMIT}), and frozen: a repeated call is two map lookups. Only calls whose rules have
 * command tables alone are memoised here (a path table asks the resolver, so the filesystem, each time); a call
 * whose deciding rules have no argument patterns is one memoised decision per name.
 * @module
 */
import { DEFAULT_DENY_RULE, effectiveHints, hintsKey, pickInDocument, RESTRICTIVENESS } from './document.js';
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
} from './types.js';

export type { CallDecision, CallInput, CommandDecision, DecideCallOptions } from './types.js';

const DEFAULT_DENY: CallDecision = Object.freeze({ decision: 'deny', rule: DEFAULT_DENY_RULE });
const LEXICAL = lexicalPathResolver();

/** Most memoised call decisions per policy (over all its tools) before the memo is dropped. */
export const CALL_MEMO_LIMIT = 16_384;
/**
 * Most texts noted as seen once per policy before the note is dropped. A decision is memoised the second time its
 * text is seen: most commands an agent runs are run once, and memoising each would keep its decision alive until
 * the memo is dropped, for the garbage collector to copy and mark for nothing. Small, so that noting a text stays
 * cheap (a large table is cache misses on every call); a text seen again after this many others counts as new.
 */
const SEEN_LIMIT = 256;
/** Most memoised tool routes per hints key before they are dropped (hallucinated names cannot grow memory). */
const ROUTE_LIMIT = 65_536;

/**
 * How one tool name (with one set of hints) is decided in a policy: which arguments its decision reads, and the
 * memo of its decisions by their text. Computed once per (name, hints) from the rules that can take part (the
 * deciding rule of each document and, through abstentions, the rules after it).
 */
interface Route {
  /**
   * `static`: no rule with argument patterns takes part, the decision is `fixed`; `text`: only command tables
   * take part and they read one argument, the memo is keyed by its text; `json`: command tables reading several
   * arguments, keyed by their values; `none`: a path table takes part (it asks the resolver, so the filesystem),
   * not memoised here.
   */
  readonly kind: 'static' | 'text' | 'json' | 'none';
  readonly argument: string;
  readonly arguments: readonly string[];
  fixed: CallDecision | undefined;
  /**
   * Memoised decisions by their key (a string key: V8 keeps a string's hash in it, so a repeated call with the same
   * string, or noting it as seen, hashes it no more).
   */
  readonly memo: Map<string, Memoised>;
}

/** One memoised decision. */
interface Memoised {
  /** The decision of the text alone. */
  readonly decision: CallDecision;
  /**
   * For an allow or ask that a pattern gave a configured program (git): those programs, which each call asks its
   * own workspace check about.
   */
  readonly programs: ReadonlySet<string> | undefined;
}

/** Everything memoised for one policy's documents. */
export class CallMemo {
  readonly hasArguments: boolean;
  /** Routes by name for calls without hints (the common call, one lookup). */
  plain = new Map<string, Route>();
  /** Routes by name per hints key, made on the first call with hints (`plain` at the no-hints key). */
  byHints: Map<string, Route>[] | undefined;
  /** Memoised decisions over every route, for the bound. */
  size = 0;
  /** Keys seen once and not memoised (over every route: one seen with another tool counts, which errs cheap). */
  readonly seen = new Set<string>();

  constructor(readonly documents: readonly CompiledDocument[]) {
    this.hasArguments = documents.some(documentHasArguments);
  }

  route(name: string, hints: Hints | undefined): Route {
    const routes = hints === undefined ? this.plain : this.withHints(hintsKey(hints));
    let route = routes.get(name);
    if (route === undefined) {
      if (routes.size >= ROUTE_LIMIT) routes.clear();
      route = routeOf(this.documents, name, effectiveHints(hints));
      routes.set(name, route);
    }
    return route;
  }

  private withHints(key: number): Map<string, Route> {
    if (this.byHints === undefined) {
      this.byHints = [];
      for (let k = 0; k < 16; k++) this.byHints.push(k === NO_HINTS_KEY ? this.plain : new Map());
    }
    return this.byHints[key]!;
  }

  /**
   * Whether a key not in the memo was seen before (then memoise its decision); the first time, it is only noted.
   * @returns true from the second time a key is seen (within {@link SEEN_LIMIT} others)
   */
  admits(key: string): boolean {
    const seen = this.seen;
    if (seen.delete(key)) return true;
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(key);
    return false;
  }

  remember(route: Route, key: string, memoised: Memoised): void {
    if (this.size >= CALL_MEMO_LIMIT) {
      for (const routes of this.byHints ?? [this.plain]) for (const r of routes.values()) r.memo.clear();
      this.size = 0;
    }
    route.memo.set(key, memoised);
    this.size++;
  }
}

const NO_HINTS_KEY = hintsKey({});
const memos = new WeakMap<readonly CompiledDocument[], CallMemo>();

/**
 * Where a policy object may keep its call memo (the compiled policies of `compilePolicies` do, initialised to
 * undefined), so a repeated call skips the `WeakMap` lookup by documents.
 */
export const CALL_MEMO: unique symbol = Symbol('dsh-mode call memo');
/** A policy with a slot for its call memo. */
export interface CallMemoSlot {
  [CALL_MEMO]?: CallMemo | undefined;
}

function memoOf(docs: readonly CompiledDocument[]): CallMemo {
  let memo = memos.get(docs);
  if (memo === undefined) memos.set(docs, (memo = new CallMemo(docs)));
  return memo;
}

/** The route of one name: the tables of every rule that can take part in its decision. */
function routeOf(docs: readonly CompiledDocument[], name: string, hints: EffectiveHints): Route {
  const names = new Set<string>();
  let paths = false;
  for (const doc of docs) {
    // The rules resolveCall can reach: the deciding one, and while it has argument patterns (and so may
    // abstain), the one deciding without it.
    const skip = new Set<CompiledEntry>();
    for (;;) {
      const entry = pickInDocument(doc, name, hints, skip.size === 0 ? {} : { skip: (e) => skip.has(e) });
      if (entry === undefined || entry.kind !== 'tool' || entry.arguments === undefined) break;
      for (const table of entry.arguments) {
        if (!(table instanceof Table)) continue;
        if (table.kind === 'paths') paths = true;
        names.add(table.argument);
      }
      skip.add(entry);
    }
  }
  const list = [...names].sort();
  const kind = paths ? 'none' : list.length === 0 ? 'static' : list.length === 1 ? 'text' : 'json';
  return {
    kind,
    argument: list[0] ?? '',
    arguments: list,
    fixed: undefined,
    memo: new Map(),
  };
}

/** A decision as the memo keeps it: frozen, so no caller can change what the next one gets. */
function frozen(d: CallDecision): CallDecision {
  if (Object.isFrozen(d)) return d;
  if (d.commands !== undefined) {
    for (const c of d.commands) Object.freeze(c);
    Object.freeze(d.commands);
  }
  return Object.freeze(d);
}

/**
 * Whether any document of the policy has argument patterns (then calls go through {@link decideCall}).
 * @returns true when some rule has `commands` or `paths`
 */
export function hasArgumentRules(policy: CompiledPolicy): boolean {
  const docs = policy.documents;
  return docs === undefined ? false : memoOf(docs).hasArguments;
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
  options?: DecideCallOptions,
): CallDecision {
  const docs = policy.documents;
  if (docs === undefined) return policy.decide(call.name, call.hints);
  let memo = (policy as CallMemoSlot)[CALL_MEMO];
  if (memo === undefined || memo.documents !== docs) {
    memo = memoOf(docs);
    if (CALL_MEMO in policy) (policy as CallMemoSlot)[CALL_MEMO] = memo;
  }
  if (!memo.hasArguments) return policy.decide(call.name, call.hints);
  // A repeated call is one route lookup and one lookup of its argument text.
  const route = memo.route(call.name, call.hints);
  switch (route.kind) {
    case 'static':
      return (route.fixed ??= frozen(resolveAll(docs, call, options).decision));
    case 'text': {
      const args = call.arguments;
      const value =
        args !== null && typeof args === 'object'
          ? (args as Record<string, unknown>)[route.argument]
          : undefined;
      if (typeof value !== 'string') return resolveAll(docs, call, options).decision;
      const hit = route.memo.get(value);
      if (hit !== undefined) return checked(hit, docs, call, options);
      return remembered(memo, route, value, docs, call, options);
    }
    case 'json': {
      const key = argumentsKey(call.arguments, route.arguments);
      if (key === undefined) return resolveAll(docs, call, options).decision;
      const hit = route.memo.get(key);
      if (hit !== undefined) return checked(hit, docs, call, options);
      return remembered(memo, route, key, docs, call, options);
    }
    default:
      return resolveAll(docs, call, options).decision;
  }
}

/** The memo key of several string arguments, or undefined when one is not a string (not memoised). */
function argumentsKey(args: unknown, names: readonly string[]): string | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const values: string[] = [];
  for (const name of names) {
    const v = (args as Record<string, unknown>)[name];
    if (typeof v !== 'string') return undefined;
    values.push(v);
  }
  return JSON.stringify(values);
}

/**
 * Decides a call not in the memo. Seen before: by its text alone, memoised, and answered for this call's
 * workspace. Seen the first time: decided for this call, as it is, and only noted as seen.
 */
function remembered(
  memo: CallMemo,
  route: Route,
  key: string,
  docs: readonly CompiledDocument[],
  call: CallInput,
  options: DecideCallOptions | undefined,
): CallDecision {
  if (!memo.admits(key)) return resolveAll(docs, call, options, true).decision;
  const textOnly = options?.resolvePath ? { resolvePath: options.resolvePath } : undefined;
  const { decision, programs } = resolveAll(docs, call, textOnly, true);
  // A check only turns an allow or ask into a deny: a deny needs none.
  const decided = frozen(decision);
  const memoised: Memoised = {
    decision: decided,
    programs: decided.decision === 'deny' ? undefined : programs,
  };
  memo.remember(route, key, memoised);
  return checked(memoised, docs, call, options);
}

/** A memoised decision, unless this call's workspace check withholds one of its programs (then decided anew). */
function checked(
  memoised: Memoised,
  docs: readonly CompiledDocument[],
  call: CallInput,
  options: DecideCallOptions | undefined,
): CallDecision {
  const check = options?.checkProgram;
  const programs = memoised.programs;
  if (check === undefined || programs === undefined) return memoised.decision;
  for (const p of programs) if (check(p) !== undefined) return resolveAll(docs, call, options).decision;
  return memoised.decision;
}

/**
 * The decision, unmemoised: every document resolves the call, the ceiling across them, with `programs` the
 * configured programs (git) that a pattern allowed or asked for, so that the decision depends on the workspace.
 * `memoised`: the call memo is in charge of this argument text (it keeps the decision from the second time it sees
 * the text), so the tables need not keep their judgements of it.
 */
function resolveAll(
  docs: readonly CompiledDocument[],
  call: CallInput,
  options: DecideCallOptions | undefined,
  memoised = false,
): { decision: CallDecision; programs: ReadonlySet<string> | undefined } {
  const context: CallContext = {
    resolvePath: options?.resolvePath ?? LEXICAL,
    tool: call.name,
    memoised,
    checkProgram: options?.checkProgram,
    programs: undefined,
  };
  const hints = effectiveHints(call.hints);
  let best: CallDecision | undefined;
  let complete = false;
  for (const doc of docs) {
    const r = resolveCall(doc, call, hints, context, NOTHING_SKIPPED);
    if (r.complete) complete = true;
    if (r.best && (!best || rank(r.best.decision) > rank(best.decision))) best = r.best;
  }
  const decision = !complete && (!best || best.decision !== 'deny') ? DEFAULT_DENY : (best ?? DEFAULT_DENY);
  return { decision, programs: context.programs };
}

interface CallContext extends JudgeContext {
  readonly checkProgram: ProgramCheck | undefined;
  /** The configured programs a pattern allowed or asked for (whether or not a check was given). */
  programs: Set<string> | undefined;
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
const NO_VERDICTS: readonly SubjectVerdict[] = [];

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
  const tables = entry.arguments;
  let verdicts: readonly SubjectVerdict[];
  let scriptVerdicts: readonly SubjectVerdict[];
  const only = tables.length === 1 ? tables[0] : undefined;
  if (only instanceof Table) {
    // One table (the usual rule): its verdicts as they are, no copies.
    verdicts = only.judge(call.arguments, context);
    scriptVerdicts = only.kind === 'commands' ? verdicts : NO_VERDICTS;
  } else {
    const all: SubjectVerdict[] = [];
    const scripts: SubjectVerdict[] = [];
    for (const table of tables) {
      if (!(table instanceof Table)) continue;
      const judged = table.judge(call.arguments, context);
      for (const v of judged) all.push(v);
      if (table.kind === 'commands') for (const v of judged) scripts.push(v);
    }
    verdicts = all;
    scriptVerdicts = scripts;
  }
  let configured = false;
  for (const v of verdicts)
    if (v.program !== undefined) {
      configured = true;
      (context.programs ??= new Set()).add(v.program);
    }
  // Without a check nothing is withheld: the verdicts stand as they are, no copies.
  const check = context.checkProgram;
  if (configured && check !== undefined) {
    // One question per program for the whole call, however many of its commands (and documents) run it.
    const answers = (context.answers ??= new Map());
    const ask: ProgramCheck = (program) => {
      if (!answers.has(program)) answers.set(program, check(program));
      return answers.get(program);
    };
    const withheld = (v: SubjectVerdict) => (v.program === undefined ? v : checkedVerdict(v, v.program, ask));
    const all = verdicts.map(withheld);
    scriptVerdicts =
      scriptVerdicts === verdicts
        ? all
        : scriptVerdicts.length === 0
          ? NO_VERDICTS
          : scriptVerdicts.map(withheld);
    verdicts = all;
  }
  // The first of the most restrictive decided subjects decides; any abstention leaves the rest to the document.
  let top: SubjectVerdict | undefined;
  let abstains = false;
  for (const v of verdicts) {
    if (v.abstains) abstains = true;
    if (v.decision === undefined || (top && rank(v.decision) <= rank(top.decision!))) continue;
    top = v;
  }
  let best = top === undefined ? undefined : fromSubject(entry.ref, entry.reason, top, top.decision!);
  let complete = true;
  let rest: DocumentAnswer | undefined;
  if (abstains) {
    rest = resolveCall(doc, call, hints, context, new Set([...skip, entry]));
    complete = rest.complete;
    if (rest.best && (!best || rank(rest.best.decision) > rank(best.decision))) {
      best = rest.best;
      // The rest of the document decided for a command or path this rule has no pattern for: name it, so the
      // reason quotes it (`"rm x" matches no pattern of \`bash\``) instead of naming only the default.
      if (best.subject === undefined) unmatchedSubject(best, entry.ref, verdicts);
    }
  }
  if (best && scriptVerdicts.length > 0) {
    // `best` is this call's own object (made here or by the nested resolveCall), so it takes the commands as is.
    // Made at its length: a pushed array keeps spare room, and a memoised decision keeps this one.
    const commands: CommandDecision[] = new Array<CommandDecision>(scriptVerdicts.length);
    for (let i = 0; i < scriptVerdicts.length; i++)
      commands[i] = commandOf(entry.ref, scriptVerdicts[i]!, rest);
    best.commands = commands;
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
function checkedVerdict(v: SubjectVerdict, program: string, check: ProgramCheck | undefined): SubjectVerdict {
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
  // One literal per shape, keys in this order: a property added later needs a backing store of its own, and a
  // memoised decision keeps one of these per command.
  const text = v.subject;
  const d = decision ?? 'deny';
  const note = v.note;
  if (v.pattern === undefined || by !== rule)
    return note === undefined ? { text, decision: d, rule: by } : { text, decision: d, rule: by, note };
  const pattern = v.pattern.ref;
  return note === undefined
    ? { text, decision: d, rule: by, pattern }
    : { text, decision: d, rule: by, pattern, note };
}

function rank(d: Decision): number {
  // Named reads of the frozen table (constants once optimised), not a keyed read by the decision string.
  return d === 'deny' ? RESTRICTIVENESS.deny : d === 'ask' ? RESTRICTIVENESS.ask : RESTRICTIVENESS.allow;
}
