/**
 * A mode's prompt section, with its placeholders expanded from the compiled rules, so what the section tells the
 * model cannot drift from what the policy decides.
 *
 * `{{commands TOOL}}` (on a line of its own, or anywhere in a line) becomes a Markdown list of the command
 * patterns the mode's documents give `TOOL`: one line per group of allow patterns with the same literal leading
 * words (`git log **` → `git log`), each followed by the deny and ask patterns that narrow it (those whose
 * leading words start with the group's). Deny and ask patterns more general than every group (`** --force **`)
 * are listed once, after the groups; those that can match nothing the allows match (`git -c* **` next to `git
 * log **`) are left out. A last line says what happens to any other command (the most restrictive base, or the
 * mode's other rules when no rule has one). When a
 * document decides `TOOL` by name alone, the list says so (`deny`: no command runs; `ask`: every command needs
 * the user's approval). Any other `{{…}}` is left as written. Pure: no I/O.
 * @module
 */
import { pickInDocument, RESTRICTIVENESS } from './document.js';
import { parseCommandPattern } from './shell/index.js';
import type { ArgumentPattern, CompiledDocument, Decision } from './types.js';

/** `{{commands bash}}`: the placeholder for a tool's command patterns. */
export const COMMANDS_PLACEHOLDER = /\{\{\s*commands\s+([^\s{}]+)\s*\}\}/g;

/**
 * Expands the placeholders of a section.
 * @param section the section text, as written (the documents' sections joined)
 * @param documents the mode's documents, in load order
 * @returns the section with every `{{commands TOOL}}` replaced by that tool's command list
 */
export function renderSection(section: string, documents: readonly CompiledDocument[]): string {
  return section.replace(COMMANDS_PLACEHOLDER, (_all, tool: string) => renderCommands(documents, tool));
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
 * @returns the groups, the general exceptions and what happens to other commands
 */
export function collectCommands(documents: readonly CompiledDocument[], tool: string): CommandList {
  const allows: ArgumentPattern[] = [];
  const others: ArgumentPattern[] = [];
  let otherwise: Decision | undefined;
  let byName: Decision | undefined;
  const worse = (a: Decision | undefined, b: Decision): Decision =>
    a === undefined || RESTRICTIVENESS[b] > RESTRICTIVENESS[a] ? b : a;
  for (const doc of documents) {
    const entry = pickInDocument(doc, tool);
    if (entry === undefined) continue;
    const tables = entry.kind === 'tool' ? entry.arguments?.filter((t) => t.kind === 'commands') : undefined;
    if (tables === undefined || tables.length === 0) {
      if (entry.decision !== 'allow') byName = worse(byName, entry.decision);
      continue;
    }
    if (entry.kind === 'tool' && entry.base !== undefined) otherwise = worse(otherwise, entry.base);
    for (const table of tables)
      for (const p of table.patterns) {
        if (p.error !== undefined) continue;
        (p.decision === 'allow' ? allows : others).push(p);
      }
  }
  // An allow that a deny or ask of the same text overrides (the more restrictive wins a tie) is not listed.
  const overridden = new Set(
    others.map((p) =>
      p.source
        .trim()
        .split(/[ \t]+/)
        .join(' '),
    ),
  );
  const groups: { prefix: string[]; allow: string[]; except: ArgumentPattern[] }[] = [];
  for (const p of allows) {
    if (
      overridden.has(
        p.source
          .trim()
          .split(/[ \t]+/)
          .join(' '),
      )
    )
      continue;
    const prefix = literalPrefix(p.source);
    const key = prefix.join(' ');
    const group = groups.find((g) => g.prefix.join(' ') === key);
    if (group) group.allow.push(p.source);
    else groups.push({ prefix, allow: [p.source], except: [] });
  }
  const general: ArgumentPattern[] = [];
  for (const p of others) {
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

/**
 * Renders a tool's command list as Markdown.
 * @returns the list, or one sentence when no command pattern allows anything
 */
export function renderCommands(documents: readonly CompiledDocument[], tool: string): string {
  const list = collectCommands(documents, tool);
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
    if (!(w.re ? w.re.test(prefix[i]!) : w.text === prefix[i])) return false;
  }
  return true;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((w, i) => words[i] === w);
}
