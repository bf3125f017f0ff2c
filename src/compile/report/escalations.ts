/**
 * The exact diff behind `dsh-mode diff --fail-on-escalation`: every call whose decision moves towards allow (an
 * escalation: deny → ask, deny → allow, ask → allow) or towards deny (a narrowing) between two compiled policy
 * sets, found without sampling, each shown by a shortest witness call that the real decision confirms.
 *
 * A call is a tool name, its hints and its arguments. The space is split into finitely many classes that every
 * decision treats alike, one witness call per class is decided on both sides with the real `decideCall` (or the
 * caller's `judge`), and a class escalates exactly when its witness does:
 * - **Names.** Per mode, the names the rules name and the catalog lists are classes of their own; all other
 *   names fall into the classes the mode's globs (both sides) tell apart (`exact/names.ts`). Every name is asked
 *   with the hints the catalog declares for it (none for a name it does not list), and, where hints can reach the
 *   decision (some document has `effects` and no rule with a base for the name), with each of the 16 hint
 *   combinations too: a tool's annotations can change without the policy changing.
 * - **Commands.** For a name whose rules have `commands:` tables, the simple commands fall into the classes the
 *   tables tell apart (`exact/commands.ts`). A script is judged per simple command and a rule combines its
 *   commands with "most restrictive" and "any abstains", so its judgement is the join of its commands' (plus the
 *   fail-closed verdict when something cannot be analysed, and the workspace check's rule: after a folder move,
 *   a `git` that a pattern allows or asks is judged as unanalysable). The joins of the classes' judgements are
 *   finitely many; each is asked once, as the shortest script that makes it (its commands joined by `; `, a
 *   `>x` for the fail-closed verdict). The empty script and a call without the argument are asked too. So a
 *   script escalates only where some join of its commands does: with rules that all have a base this is a single
 *   command; with a rule that abstains, a combination can (the rest of its document judges the whole script).
 * - **Paths.** For `paths:` tables, the paths (as `lexicalPathResolver` reads them) fall into the classes the
 *   tables tell apart (`exact/paths.ts`); the workspace root, a call without the argument and a path that cannot
 *   be resolved are asked too.
 * - Arguments that different tables read are combined (every class of each with every class of the others).
 *
 * What "exact" does not cover is reported in `limits`, never silently: a class whose shortest member the real
 * matcher or the analyser reads otherwise (a wrapper such as `sudo x` is two commands), a search that reached
 * its budget, and an argument read as both a script and a path. Filesystem-dependent parts are outside the text
 * the diff compares: symlinks (paths are judged as written), the workspace check of git's own configuration, and
 * the sandbox.
 * @module
 */
import type { CommandRule } from '../decide/command-table.js';
import type { CompiledPolicySet } from '../decide/compile.js';
import { decideCall } from '../decide/call.js';
import { Table } from '../decide/argument-tables.js';
import { RESTRICTIVENESS } from '../decide/restrictiveness.js';
import type { ToolCatalogEntry } from '../catalog/catalog.js';
import { commandClasses, type CommandClass } from './exact/commands.js';
import { nameClasses } from './exact/names.js';
import { pathClasses } from './exact/paths.js';
import { HINT_COMBINATIONS, hintLabel, modeNames } from './grid.js';
import type { CompiledRule, Decision, Hints } from '../types.js';

/** Which side of a diff. */
export type Side = 'old' | 'new';

/** One call: what a witness is. */
export interface ExactCall {
  readonly name: string;
  readonly hints?: Readonly<Hints>;
  /** The call's arguments; an argument left out is absent. */
  readonly arguments?: Readonly<Record<string, string>>;
}

/** A side's answer for a call: its decision, and what tells two answers apart for a reader (rule, pattern). */
export interface Judgement {
  readonly decision: Decision;
  readonly key: string;
}

/** Decides a call on one side (the CLI passes the engine's `authorize`). */
export type Judge = (side: Side, mode: string, call: ExactCall) => Judgement;

/** What a witness varies: the name and hints only, or a command, a path, or several arguments. */
export type FindingKind = 'name' | 'command' | 'path' | 'arguments';

/** One change, shown by its shortest witness. */
export interface ExactFinding {
  readonly mode: string;
  readonly kind: FindingKind;
  readonly call: ExactCall;
  /** The call as people read it: `bash command="sort --output=x"`, `mcp__x [readOnly]`. */
  readonly label: string;
  readonly before: Decision;
  readonly after: Decision;
}

/**
 * A place where the answer is not exact. `incomplete` when some calls were not asked at all (a search budget):
 * an escalation may then be missed, so `--fail-on-escalation` fails closed. Otherwise a class's witness is read
 * otherwise by the real matcher or analyser: its calls were still asked, but may not stand for the whole class.
 */
export interface ExactLimit {
  readonly text: string;
  readonly incomplete: boolean;
}

/** What the exact diff found. */
export interface ExactDiff {
  /** Changes towards allow: one per mode, name class and distinct pair of answers, shortest witness first. */
  readonly escalations: readonly ExactFinding[];
  /** Changes towards deny, likewise. */
  readonly narrowings: readonly ExactFinding[];
  /** Where the answer is not exact (see the module header); empty when it is exact everywhere. */
  readonly limits: readonly ExactLimit[];
  /** How many calls were decided (on each side). */
  readonly calls: number;
}

/** Options of {@link exactDiff}. */
export interface ExactDiffOptions {
  /** The tools with the hints they declare (the one tool catalog); their names are asked with those hints only. */
  readonly catalog?: readonly ToolCatalogEntry[];
  /** How a side decides a call; by default the compiled policy's `decideCall`, deny for a mode it lacks. */
  readonly judge?: Judge;
}

/** Most argument combinations asked per name and hints; beyond it the rest is reported as a limit. */
export const MAX_COMBINATIONS = 20_000;
/** Most joins of command classes kept per argument. */
export const MAX_JOINS = 20_000;

/** The fail-closed construct used for "something cannot be analysed": an output redirection, no command. */
export const UNANALYSABLE_SCRIPT = '>x';
/** A path no resolver accepts (a NUL byte). */
export const UNRESOLVABLE_PATH = '\u0000';

/**
 * The exact diff of two compiled policy sets.
 * @returns the escalations and narrowings with their witnesses, and the limits of exactness met
 */
export function exactDiff(
  before: CompiledPolicySet,
  after: CompiledPolicySet,
  options: ExactDiffOptions = {},
): ExactDiff {
  const judge = options.judge ?? defaultJudge(before, after);
  const escalations: ExactFinding[] = [];
  const narrowings: ExactFinding[] = [];
  const limits = new Map<string, ExactLimit>();
  const note = (text: string, incomplete: boolean) => {
    const known = limits.get(text);
    limits.set(text, { text, incomplete: incomplete || (known?.incomplete ?? false) });
  };
  let calls = 0;
  const catalog = new Map((options.catalog ?? []).map((t) => [t.name, t]));
  for (const mode of modeNames(before, after)) {
    const documents = [...(before.get(mode)?.documents ?? []), ...(after.get(mode)?.documents ?? [])];
    const rules = documents.flatMap((d) => d.rules);
    const globs = new Map<string, CompiledRule>();
    const exact = new Set<string>(catalog.keys());
    for (const r of rules) {
      if (r.isGlob) globs.set(r.pattern, r);
      else if (r.name !== undefined) exact.add(r.name);
    }
    const classes = nameClasses([...globs.values()], exact);
    if (classes.truncated) note(`mode \`${mode}\`: the search of tool names reached its budget`, true);
    for (const c of classes.classes) if (c.inexact) note(`mode \`${mode}\`: ${c.inexact}`, false);
    const names = [...[...exact].sort(), ...classes.classes.map((c) => c.name)];
    const groups = new Map<string, { finding: ExactFinding; up: boolean }>();
    const candidates = new Map<string, Candidates>();
    for (const name of names) {
      // Hints reach a decision only through `effects`, which a document consults for a name only when none of
      // its rules that match the name has a base (a rule with a base decides every call it is picked for, and
      // every matching rule is picked before the document falls back). A tool's annotations can change without
      // the policy changing (an MCP server's update), so a catalog tool is asked with every combination too.
      const tool = catalog.get(name);
      const matches = (r: CompiledRule) => (r.isGlob ? r.match(name) : r.name === name);
      const hintsMatter = documents.some(
        (d) => d.effects.length > 0 && !d.rules.some((r) => r.base !== undefined && matches(r)),
      );
      const hintSets: readonly { hints: Readonly<Hints> | undefined; shown: boolean }[] = [
        { hints: tool?.hints, shown: false },
        ...(hintsMatter ? HINT_COMBINATIONS.map((hints) => ({ hints, shown: true })) : []),
      ];
      const applying = rules.filter(
        (r) => r.arguments !== undefined && (r.isGlob ? r.match(name) : r.name === name),
      );
      const key = applying.map((r) => rules.indexOf(r)).join(',');
      let asked = candidates.get(key);
      if (asked === undefined) {
        asked = argumentCandidates(applying, (l, incomplete) =>
          note(`mode \`${mode}\`, \`${name}\`: ${l}`, incomplete),
        );
        candidates.set(key, asked);
      }
      for (const { hints, shown } of hintSets) {
        for (const args of asked.values) {
          const call: ExactCall = {
            name,
            ...(hints === undefined ? {} : { hints }),
            ...(args === undefined ? {} : { arguments: args }),
          };
          calls++;
          const was = judge('old', mode, call);
          const now = judge('new', mode, call);
          const order = RESTRICTIVENESS[now.decision] - RESTRICTIVENESS[was.decision];
          if (order === 0) continue;
          const finding: ExactFinding = {
            mode,
            kind: kindOf(args, asked.kinds),
            call,
            label: labelOf(call, shown),
            before: was.decision,
            after: now.decision,
          };
          const group = `${name}\u0000${was.decision}:${was.key}\u0000${now.decision}:${now.key}`;
          const known = groups.get(group);
          if (known === undefined || shorter(finding, known.finding))
            groups.set(group, { finding, up: order < 0 });
        }
      }
    }
    for (const { finding, up } of groups.values()) (up ? escalations : narrowings).push(finding);
  }
  return { escalations, narrowings, limits: [...limits.values()], calls };
}

function shorter(a: ExactFinding, b: ExactFinding): boolean {
  return a.label.length < b.label.length;
}

function kindOf(
  args: Record<string, string> | undefined,
  kinds: ReadonlyMap<string, FindingKind>,
): FindingKind {
  if (args === undefined) return 'name';
  const keys = Object.keys(args);
  return keys.length === 1 ? (kinds.get(keys[0]!) ?? 'arguments') : 'arguments';
}

/** The argument values a name is asked with, and what kind of subject each argument is. */
interface Candidates {
  /** Argument objects; undefined is the call without arguments. */
  readonly values: readonly (Record<string, string> | undefined)[];
  readonly kinds: ReadonlyMap<string, FindingKind>;
}

/**
 * A call as people read it: the name, the hints that are true when they were chosen, the arguments.
 * @param showHints whether the hints are the witness's (not a catalog tool's own)
 * @returns for example `bash command="sort --output=x"`
 */
export function labelOf(call: ExactCall, showHints = true): string {
  const parts = [call.name];
  if (showHints && call.hints !== undefined) parts.push(hintLabel(call.hints as Required<Hints>));
  for (const [k, v] of Object.entries(call.arguments ?? {})) parts.push(`${k}=${JSON.stringify(v)}`);
  return parts.join(' ');
}

/** The compiled policies' own decisions: `decideCall`, and deny for a mode a side does not define. */
function defaultJudge(before: CompiledPolicySet, after: CompiledPolicySet): Judge {
  return (side, mode, call) => {
    const policy = (side === 'old' ? before : after).get(mode);
    if (policy === undefined) return { decision: 'deny', key: '(mode not defined)' };
    const r = decideCall(policy, {
      name: call.name,
      ...(call.hints === undefined ? {} : { hints: call.hints }),
      ...(call.arguments === undefined ? {} : { arguments: call.arguments }),
    });
    return { decision: r.decision, key: JSON.stringify([r.rule.selector, r.pattern?.selector, r.reason]) };
  };
}

/**
 * The argument values to ask a name with: every combination of each argument's classes (absent included), or
 * one call without arguments when no rule has argument patterns.
 * @returns argument objects (undefined: the call without arguments)
 */
function argumentCandidates(rules: readonly CompiledRule[], limit: Limit): Candidates {
  const byArgument = new Map<string, { commands: Table[]; paths: Table[] }>();
  for (const rule of rules) {
    for (const table of rule.arguments ?? []) {
      if (!(table instanceof Table)) continue;
      const entry = byArgument.get(table.argument) ?? { commands: [], paths: [] };
      byArgument.set(table.argument, entry);
      (table.kind === 'commands' ? entry.commands : entry.paths).push(table);
    }
  }
  const kinds = new Map<string, FindingKind>();
  if (byArgument.size === 0) return { values: [undefined], kinds };
  let combos: Record<string, string>[] = [{}];
  for (const [argument, tables] of byArgument) {
    const values = new Set<string | undefined>([undefined]);
    if (tables.commands.length > 0) for (const v of scriptCandidates(tables.commands, limit)) values.add(v);
    if (tables.paths.length > 0) for (const v of pathCandidates(tables.paths, limit)) values.add(v);
    kinds.set(
      argument,
      tables.paths.length === 0 ? 'command' : tables.commands.length === 0 ? 'path' : 'arguments',
    );
    if (tables.commands.length > 0 && tables.paths.length > 0)
      limit(
        `argument \`${argument}\` is read as a script and as a path; their classes are asked apart`,
        false,
      );
    const next: Record<string, string>[] = [];
    for (const combo of combos) {
      for (const v of values) {
        if (next.length >= MAX_COMBINATIONS) break;
        next.push(v === undefined ? combo : { ...combo, [argument]: v });
      }
    }
    if (combos.length * values.size > MAX_COMBINATIONS)
      limit(`more than ${MAX_COMBINATIONS} argument combinations; the rest were not asked`, true);
    combos = next;
  }
  return { values: combos.map((c) => (Object.keys(c).length === 0 ? undefined : c)), kinds };
}

/** Reports a limit; `incomplete` when calls went unasked. */
type Limit = (text: string, incomplete: boolean) => void;

/** How one table judges a subject, as the join needs it: the decision's rank (-1 for none) and "abstains". */
interface Verdict {
  readonly rank: number;
  readonly abstains: boolean;
}

const NONE: Verdict = { rank: -1, abstains: false };
const rankOf = (d: Decision): number => RESTRICTIVENESS[d];

/** The fail-closed verdict of a table (`Table.unanalysable`). */
function unanalysableVerdict(base: Decision | undefined): Verdict {
  if (base === undefined) return { rank: rankOf('ask'), abstains: true };
  return { rank: rankOf(base === 'allow' ? 'ask' : base), abstains: false };
}

function joinVerdicts(a: readonly Verdict[], b: readonly Verdict[]): Verdict[] {
  return a.map((v, i) => ({
    rank: Math.max(v.rank, b[i]!.rank),
    abstains: v.abstains || b[i]!.abstains,
  }));
}

const verdictsKey = (vs: readonly Verdict[]): string =>
  vs.map((v) => `${v.rank + 1}${v.abstains ? 'a' : ''}`).join(',');

/** One join of commands: its judgement as written and after a folder move, and the script that makes it. */
interface Join {
  readonly normal: readonly Verdict[];
  readonly moved: readonly Verdict[];
  readonly move: boolean;
  readonly unanalysable: boolean;
  readonly parts: readonly string[];
}

/**
 * The scripts to ask for a set of `commands:` tables: the shortest script for each judgement that some join of
 * command classes makes, the empty script, and the fail-closed construct alone.
 * @returns scripts
 */
function scriptCandidates(tables: readonly Table[], limit: Limit): string[] {
  const found = commandClasses(tables.map((t) => ({ patterns: t.patterns as readonly CommandRule[] })));
  if (found.truncated) limit('the search of commands reached its budget; some classes may be missing', true);
  for (const c of found.classes) if (c.inexact) limit(c.inexact, false);
  const fail = tables.map((t) => unanalysableVerdict(t.base));
  const singles: Join[] = found.classes.map((c) => single(c, tables, fail));
  const failJoin: Join = {
    normal: tables.map(() => NONE),
    moved: tables.map(() => NONE),
    move: false,
    unanalysable: true,
    parts: [UNANALYSABLE_SCRIPT],
  };
  const keyOf = (j: Join) =>
    `${verdictsKey(j.normal)}|${verdictsKey(j.moved)}|${j.move ? 1 : 0}${j.unanalysable ? 1 : 0}`;
  const joins = new Map<string, Join>();
  let frontier: Join[] = [];
  // Classes that judge alike join alike: one of each (the shortest, found first) is enough to join with.
  for (const e of [...singles, failJoin]) {
    const k = keyOf(e);
    if (!joins.has(k)) {
      joins.set(k, e);
      frontier.push(e);
    }
  }
  const elements = [...frontier];
  // Joins by number of commands: each round adds one class to the joins found in the last round.
  while (frontier.length > 0 && joins.size < MAX_JOINS) {
    const next: Join[] = [];
    for (const j of frontier) {
      for (const e of elements) {
        const joined: Join = {
          normal: joinVerdicts(j.normal, e.normal),
          moved: joinVerdicts(j.moved, e.moved),
          move: j.move || e.move,
          unanalysable: j.unanalysable || e.unanalysable,
          parts: [...j.parts, ...e.parts],
        };
        const k = keyOf(joined);
        if (joins.has(k)) continue;
        joins.set(k, joined);
        next.push(joined);
        if (joins.size >= MAX_JOINS) break;
      }
      if (joins.size >= MAX_JOINS) break;
    }
    frontier = next;
  }
  if (joins.size >= MAX_JOINS)
    limit(`more than ${MAX_JOINS} joins of commands; the rest were not asked`, true);
  // One script per judgement: after a move the moved verdicts hold, and the fail-closed one joins in.
  const scripts = new Map<string, string>();
  for (const j of joins.values()) {
    const verdicts = joinVerdicts(j.move ? j.moved : j.normal, j.unanalysable ? fail : fail.map(() => NONE));
    const k = verdictsKey(verdicts);
    const script = j.parts.join('; ');
    const known = scripts.get(k);
    if (known === undefined || script.length < known.length) scripts.set(k, script);
  }
  // Each class on its own as well, so changes that make the same judgement from different patterns each show.
  return ['', ...new Set([...found.classes.map((c) => c.script), ...scripts.values()])];
}

/** A class's judgement by each table, as written and after a folder move. */
function single(c: CommandClass, tables: readonly Table[], fail: readonly Verdict[]): Join {
  const normal = tables.map((t, i): Verdict => {
    const w = c.winners[i]!;
    if (w >= 0) return { rank: rankOf(t.patterns[w]!.decision), abstains: false };
    return t.base === undefined ? { rank: -1, abstains: true } : { rank: rankOf(t.base), abstains: false };
  });
  // The workspace check's rule (`judgeScript`): a git that a pattern allows or asks is unanalysable after a move.
  const moved = normal.map((v, i) => {
    const w = c.winners[i]!;
    return c.git && w >= 0 && tables[i]!.patterns[w]!.decision !== 'deny' ? fail[i]! : v;
  });
  return { normal, moved, move: c.move, unanalysable: c.unanalysable, parts: [c.script] };
}

/** The paths to ask for a set of `paths:` tables: one per class, the root and an unresolvable path. */
function pathCandidates(tables: readonly Table[], limit: Limit): string[] {
  const found = pathClasses(tables.map((t) => ({ patterns: t.patterns })));
  if (found.truncated) limit('the search of paths reached its budget; some classes may be missing', true);
  for (const c of found.classes) if (c.inexact) limit(c.inexact, false);
  return [...found.classes.map((c) => c.path), UNRESOLVABLE_PATH];
}
