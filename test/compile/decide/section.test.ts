// A section's `{{commands TOOL}}` is rendered from the compiled rules: the built-in plan's section lists exactly
// the command patterns plan allows through `bash`, and a document that narrows plan changes the list with it.
import { describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicySources } from '../../../src/compile/api.js';
import { type SourceDocument } from '../../../src/compile/types.js';
import { doc, policy } from '../helpers.js';

const builtin = (await loadPolicySources([])).documents;
const planWith = (...extra: SourceDocument[]) => compilePolicies([...builtin, ...extra]).get('plan')!;

/** The patterns a rendered list names: allowed ones before `; not`, and the rest. */
function listed(section: string): { allowed: string[]; denied: string[] } {
  const allowed: string[] = [];
  const denied: string[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('- ')) continue;
    const [head, ...rest] = line.slice(2).split('; not ');
    const codes = (s: string) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    if (head!.startsWith('never ')) denied.push(...codes(head!));
    else allowed.push(...codes(head!));
    for (const r of rest) denied.push(...codes(r));
  }
  return { allowed, denied };
}

/** The plan document's `bash` command patterns, as written, by decision. */
function planPatterns(): { allow: string[]; deny: string[] } {
  const commands = (builtin[0]!.document.tools!.bash as { commands: Record<string, unknown> }).commands;
  const decisionOf = (v: unknown) => (typeof v === 'string' ? v : (v as { decision: string }).decision);
  const entries = Object.entries(commands);
  return {
    allow: entries.filter(([, v]) => decisionOf(v) === 'allow').map(([k]) => k),
    deny: entries.filter(([, v]) => decisionOf(v) === 'deny').map(([k]) => k),
  };
}

describe('section: {{commands TOOL}}', () => {
  it("renders plan's section with exactly the patterns plan allows through bash, each once", () => {
    const section = planWith().section;
    expect(builtin[0]!.document.section).toContain('{{commands bash}}');
    expect(section).not.toContain('{{');
    const { allowed, denied } = listed(section);
    const { allow, deny } = planPatterns();
    expect(allowed).toEqual(allow);
    // Every deny is shown, except those that cannot match what an allow matches (git's global options: the
    // subcommand must come first, so no allow reaches them).
    const global = deny.filter((p) => /^git -/.test(p));
    expect(global.length).toBeGreaterThan(0);
    expect([...denied].sort()).toEqual(deny.filter((p) => !global.includes(p)).sort());
    expect(section).toContain('Any other command is denied.');
  });

  it('every listed allow pattern is what plan decides: its plain form is allowed', () => {
    const plan = planWith();
    for (const pattern of listed(plan.section).allowed) {
      // `**` → no word, `*` → a letter: a command the pattern matches.
      const command = pattern
        .split(' ')
        .filter((w) => w !== '**')
        .map((w) => w.replace(/\*/g, 'x'))
        .join(' ');
      expect(plan.decideCall!({ name: 'bash', arguments: { command } }).decision, command).toBe('allow');
    }
  });

  it('follows a document that narrows plan: a denied pattern leaves the list, a new deny joins its group', () => {
    const narrowed = planWith(
      doc(
        'mode: plan\ntools:\n  bash:\n    commands:\n      "git log **": deny\n      "rg ** --files **": deny\n      "** --force **": ask\n',
        'team.yaml',
      ),
    ).section;
    const { allowed, denied } = listed(narrowed);
    expect(allowed).not.toContain('git log **');
    expect(narrowed).not.toMatch(/`git log \*\* --output\* \*\*`/);
    expect(narrowed).toMatch(/- `rg \*\*`; not .*`rg \*\* --files \*\*`/);
    expect(denied).not.toContain('git log **');
    expect(narrowed).toContain("- `** --force **` need the user's approval");
  });

  it('shows one list for several documents: merged, each pattern once, in load order, no capped allow', () => {
    const team = doc(
      [
        'mode: plan',
        'section: "Team notes. {{commands bash}}"',
        'tools:',
        '  bash:',
        '    commands:',
        '      "npm test": allow', // plan denies it (its base): not listed
        '      "git  log **": allow', // plan's own `git log **`, spelt with two spaces
        '      "ls **": allow',
        '      "git log -5": allow', // covered by `git log **`, which the mode allows
        '      "git log ** --output* **": deny', // plan's deny again
        '',
      ].join('\n'),
      'team.yaml',
    );
    const plan = planWith(team);
    const section = plan.section;
    // The list is rendered once; the team's placeholder points at it.
    expect(section.match(/Any other command is denied\./g)).toHaveLength(1);
    expect(section).toContain('Team notes. (the commands `bash` may run are listed above)');
    const { allowed, denied } = listed(section);
    expect(allowed).toEqual(planPatterns().allow);
    expect(new Set(denied).size).toBe(denied.length);
    expect(allowed).not.toContain('npm test');
    expect(plan.decideCall!({ name: 'bash', arguments: { command: 'npm test' } }).decision).toBe('deny');
    // Deterministic: the same documents give the same text.
    expect(planWith(team).section).toBe(section);
  });

  it('lists what the composed mode allows when a document allows less than plan', () => {
    const plan = planWith(
      doc(
        [
          'mode: plan',
          'tools:',
          '  bash:',
          '    decision: deny',
          '    commands:',
          '      "git log -5": allow',
          '      "git log": allow',
          '      "cat **": allow',
          '      "cat ** .env* **": deny',
          '',
        ].join('\n'),
        'team.yaml',
      ),
    );
    const { allowed, denied } = listed(plan.section);
    expect(allowed).toEqual(['cat **', 'git log -5', 'git log']);
    expect(denied).toContain('cat ** .env* **');
    // Each listed pattern's plain command is allowed, and what the list leaves out is not.
    for (const command of ['cat a', 'git log -5', 'git log'])
      expect(plan.decideCall!({ name: 'bash', arguments: { command } }).decision, command).toBe('allow');
    for (const command of ['git log -3', 'ls', 'git status'])
      expect(plan.decideCall!({ name: 'bash', arguments: { command } }).decision, command).toBe('deny');
  });

  it('says when the tool is denied or asked by name', () => {
    expect(planWith(doc('mode: plan\ntools:\n  bash: deny\n', 'team.yaml')).section).toContain(
      'No command may run through `bash` in this mode.',
    );
    expect(planWith(doc('mode: plan\ntools:\n  bash: ask\n', 'team.yaml')).section).toContain(
      "Each of these needs the user's approval; any other command is denied.",
    );
  });

  it('renders any tool, and leaves other braces as written', () => {
    const p = policy(
      'review',
      [
        'mode: review',
        'section: "Run: {{ commands shell }}. Keep {{this}}. None: {{commands nothing}}"',
        'tools:',
        '  shell:',
        '    decision: ask',
        '    commands:',
        '      "make test **": allow',
        '      "make test ** --update **": deny',
        '      "make **": ask',
      ].join('\n'),
    );
    expect(p.section).toBe(
      [
        'Run: - `make test **`; not `make test ** --update **`',
        "- `make **` need the user's approval",
        'Any other command is asked of the user.. Keep {{this}}. None: No command may run through `nothing` in this mode.',
      ].join('\n'),
    );
  });
});
