/**
 * A mode's prompt section, with its placeholders expanded from the compiled rules, so what the section tells the
 * model cannot drift from what the policy decides.
 *
 * `{{commands TOOL}}` (on a line of its own, or anywhere in a line) becomes a Markdown list of the command
 * patterns the mode's documents give `TOOL`: one list for the whole mode, however many documents give `TOOL`
 * patterns, in load order and each pattern once (patterns are compared by their words, so `git  log` is `git
 * log`). One line per group of allow patterns with the same literal leading words (`git log **` → `git log`),
 * each followed by the deny and ask patterns that narrow it (those whose leading words start with the group's).
 *
 * The list shows what the composed mode allows, not each document's wishes: documents compose as a ceiling, so an
 * allow pattern is listed only when every other document that decides `TOOL` by patterns with a restrictive base
 * has an allow pattern that covers it (`commandCovers`), and, when the caller passes the mode's decision, its
 * plain commands (`**` as no word and as one, `*` as a letter) are allowed by the whole mode. An allow another
 * listed allow covers (`git log -5` beside `git log **`) is not listed again. So an operator's `npm test: allow`
 * under plan (which denies it) is not shown, and a team document that allows only `git log -5` shows that, not
 * plan's `git log **`. Sections of several documents join, so a later `{{commands TOOL}}` for the same tool
 * says the list is above instead of repeating it. Deny and ask patterns more general than every group (`** --force **`)
 * are listed once, after the groups; those that can match nothing the allows match (`git -c* **` next to `git
 * log **`) are left out. A last line says what happens to any other command (the most restrictive base, or the
 * mode's other rules when no rule has one). When a
 * document decides `TOOL` by name alone, the list says so (`deny`: no command runs; `ask`: every command needs
 * the user's approval). Any other `{{…}}` is left as written. Pure: no I/O.
 * @module
 */
import { commandCovers } from './argument-overlap.js';
import { pickInDocument, RESTRICTIVENESS } from './document.js';
import { parseCommandPattern, wordMatches } from '../shell/index.js';
import type { ArgumentPattern, ArgumentTable, CompiledDocument, Decision } from '../types.js';

/**
 * How the composed mode decides a call: the tool and its arguments (`{command: "git log"}`). Given to
 * {@link renderSection}, it keeps allow patterns that another document denies out of the list.
 */
export type ModeDecision = (tool: string, args: Readonly<Record<string, string>>) => Decision;

/** `{{commands bash}}`: the placeholder for a tool's command patterns. */
export const COMMANDS_PLACEHOLDER = /\{\{\s*commands\s+([^\s{}]+)\s*\}\}/g;

/**
 * Expands the placeholders of a section.
 * @param section the section text, as written (the documents' sections joined)
 * @param documents the mode's documents, in load order
 * @param decide the composed mode's decision, to check each listed allow against (see the module header)
 * @returns the section with every `{{commands TOOL}}` replaced by that tool's command list
 */
export function renderSection(
  section: string,
  documents: readonly CompiledDocument[],
  decide?: ModeDecision,
): string {
  const rendered = new Set<string>();
  return section.replace(COMMANDS_PLACEHOLDER, (_all, tool: string) => {
    // Sections of several documents join: the list is shown once, where it is first asked for.
    if (rendered.has(tool)) return `(the commands \`${tool}\` may run are listed above)`;
    rendered.add(tool);
    return renderCommands(documents, tool, decide);
  });
}

/** The patterns one tool's rules give it across a mode's documents. */
export interface CommandList {
  /** Allow patterns, grouped by their literal leading words, with the deny and ask patterns that narrow them. */
  readonly groups: readonly { allow: string[]; except: ArgumentPattern[] }[];
  /** Deny and ask patterns more general than every group. */
  readonly general: readonly ArgumentPattern[];
  /** The decision for a command no pattern matches (the most restrictive base), if some rule has one. */
  readonly otherwise?: Decision;
  /** Set when a document decides the tool by name alone. */
  readonly byName?: Decision;
}

/**
 * Collects a tool's command patterns from a mode's documents (the rule the name-level resolution picks in each).
 * @param decide the composed mode's decision, when known (see the module header)
 * @returns the groups, the general exceptions and what happens to other commands
 */
export function collectCommands(
  documents: readonly CompiledDocument[],
  tool: string,
  decide?: ModeDecision,
): CommandList {
  /** Each document's allow patterns, and whether its base restricts what none of them matches. */
  const perDocument: { allows: ArgumentPattern[]; restricts: boolean }[] = [];
  const allows: { pattern: ArgumentPattern; from: number }[] = [];
  const others: ArgumentPattern[] = [];
  const argumentNames = new Set<string>();
  let otherwise: Decision | undefined;
  let byName: Decision | undefined;
  const worse = (a: Decision | undefined, b: Decision): Decision =>
    a === undefined || RESTRICTIVENESS[b] > RESTRICTIVENESS[a] ? b : a;
  for (const doc of documents) {
    const entry = pickInDocument(doc, tool);
    if (entry === undefined) continue;
    const tables: readonly ArgumentTable[] | undefined =
      entry.kind === 'tool' ? entry.arguments?.filter((t) => t.kind === 'commands') : undefined;
    if (tables === undefined || tables.length === 0) {
      if (entry.decision !== 'allow') byName = worse(byName, entry.decision);
      continue;
    }
    const base = entry.kind === 'tool' ? entry.base : undefined;
    if (base !== undefined) otherwise = worse(otherwise, base);
    const own: ArgumentPattern[] = [];
    for (const table of tables) {
      argumentNames.add(table.argument);
      for (const p of table.patterns) {
        if (p.error !== undefined) continue;
        if (p.decision === 'allow') {
          own.push(p);
          allows.push({ pattern: p, from: perDocument.length });
        } else others.push(p);
      }
    }
    perDocument.push({ allows: own, restricts: base !== undefined && base !== 'allow' });
  }
  // An allow that a deny or ask of the same words overrides (the more restrictive wins a tie) is not listed.
  const overridden = new Set(others.map((p) => wordsOf(p.source)));
  const allowedByMode = (p: ArgumentPattern): boolean => {
    // Every other document with a restrictive base must allow these commands by a pattern of its own.
    const capped = perDocument.some(
      (d, i) =>
        i !== allows.find((a) => a.pattern === p)!.from &&
        d.restricts &&
        !d.allows.some((q) => commandCovers(q.source, p.source, true)),
    );
    if (capped) return false;
    if (decide === undefined) return true;
    return plainCommands(p.source).every((command) => {
      const args = Object.fromEntries([...argumentNames].map((name) => [name, command]));
      const decision = decide(tool, args);
      return decision === 'allow' || (decision === 'ask' && byName === 'ask');
    });
  };
  const seen = new Set<string>();
  const listed: ArgumentPattern[] = [];
  for (const { pattern: p } of allows) {
    const words = wordsOf(p.source);
    if (seen.has(words) || overridden.has(words)) continue;
    seen.add(words);
    if (allowedByMode(p)) listed.push(p);
  }
  // One list: an allow that another listed allow covers says nothing more (the first of two equal ones stays).
  const kept = listed.filter(
    (p, i) =>
      !listed.some(
        (q, j) =>
          j !== i &&
          commandCovers(q.source, p.source, true) &&
          (j < i || !commandCovers(p.source, q.source, true)),
      ),
  );
  const groups: { prefix: string[]; allow: string[]; except: ArgumentPattern[] }[] = [];
  for (const p of kept) {
    const prefix = literalPrefix(p.source);
    const key = prefix.join(' ');
    const group = groups.find((g) => g.prefix.join(' ') === key);
    if (group) group.allow.push(p.source);
    else groups.push({ prefix, allow: [p.source], except: [] });
  }
  const general: ArgumentPattern[] = [];
  const excepted = new Set<string>();
  for (const p of others) {
    const key = `${p.decision} ${wordsOf(p.source)}`;
    if (excepted.has(key)) continue;
    excepted.add(key);
    const prefix = literalPrefix(p.source);
    // The longest group whose leading words start this pattern's: the pattern narrows that group.
    let home: (typeof groups)[number] | undefined;
    for (const g of groups)
      if (startsWith(prefix, g.prefix) && (!home || g.prefix.length > home.prefix.length)) home = g;
    if (home) home.except.push(p);
    else if (groups.some((g) => mayOverlap(p.source, g.prefix))) general.push(p);
  }
  const list: { -readonly [K in keyof CommandList]: CommandList[K] } = {
    groups: groups.map(({ allow, except }) => ({ allow, except })),
    general,
  };
  if (otherwise !== undefined) list.otherwise = otherwise;
  if (byName !== undefined) list.byName = byName;
  return list;
}

/** A pattern's words joined by one space: how two spellings of one pattern compare. */
function wordsOf(source: string): string {
  return source
    .trim()
    .split(/[ \t]+/)
    .join(' ');
}

/** The plain commands a pattern matches: `**` as no word and as `x`, `*` as `x`. */
function plainCommands(source: string): string[] {
  const words = wordsOf(source).split(' ');
  const fill = (by: string) =>
    words
      .map((w) => (w === '**' ? by : w.replace(/\*+/g, 'x')))
      .filter((w) => w !== '')
      .join(' ');
  return [...new Set([fill(''), fill('x')])].filter((c) => c !== '');
}

/**
 * Renders a tool's command list as Markdown.
 * @param decide the composed mode's decision, when known (see the module header)
 * @returns the list, or one sentence when no command pattern allows anything
 */
export function renderCommands(
  documents: readonly CompiledDocument[],
  tool: string,
  decide?: ModeDecision,
): string {
  const list = collectCommands(documents, tool, decide);
  if (list.byName === 'deny' || list.groups.length === 0)
    return `No command may run through \`${tool}\` in this mode.`;
  const code = (s: string) => `\`${s}\``;
  const lines = list.groups.map((g) => {
    const allowed = g.allow.map(code).join(', ');
    const denied = g.except.filter((p) => p.decision === 'deny').map((p) => code(p.source));
    const asked = g.except.filter((p) => p.decision === 'ask').map((p) => code(p.source));
    let line = `- ${allowed}`;
    if (denied.length > 0) line += `; not ${denied.join(', ')}`;
    if (asked.length > 0) line += `; ${asked.join(', ')} need the user's approval`;
    return line;
  });
  const denied = list.general.filter((p) => p.decision === 'deny').map((p) => code(p.source));
  const asked = list.general.filter((p) => p.decision === 'ask').map((p) => code(p.source));
  if (denied.length > 0) lines.push(`- never ${denied.join(', ')}`);
  if (asked.length > 0) lines.push(`- ${asked.join(', ')} need the user's approval`);
  const other =
    list.otherwise === undefined
      ? "left to the mode's other rules"
      : list.otherwise === 'allow'
        ? 'allowed'
        : list.otherwise === 'ask'
          ? 'asked of the user'
          : 'denied';
  if (list.byName === 'ask')
    lines.push(`Each of these needs the user's approval; any other command is ${other}.`);
  else lines.push(`Any other command is ${other}.`);
  return lines.join('\n');
}

/** The pattern's leading words up to the first with a `*`. */
function literalPrefix(source: string): string[] {
  const out: string[] = [];
  for (const w of parseCommandPattern(source).words) {
    if (w.kind !== 'word' || w.text.includes('*')) break;
    out.push(w.text);
  }
  return out;
}

/** Whether a pattern can match a command that starts with these literal words. */
function mayOverlap(source: string, prefix: readonly string[]): boolean {
  const words = parseCommandPattern(source).words;
  for (let i = 0; i < prefix.length; i++) {
    const w = words[i];
    if (w === undefined) return false;
    if (w.kind === 'any') return true;
    if (!wordMatches(w, prefix[i]!)) return false;
  }
  return true;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((w, i) => words[i] === w);
}
