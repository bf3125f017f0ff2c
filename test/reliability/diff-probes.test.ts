/**
 * `dsh-mode diff --fail-on-escalation` sees widenings by hints, and `matrix` shows them. The real binary as a child
 * process on temp folders. The repros: an `override` copy of plan that adds `effects: {idempotent: allow}` (an
 * idempotent MCP tool goes from deny to allow), and `mcp__*: ask` dropped for `effects: {readOnly: allow}` (a
 * read-only MCP tool goes from ask to allow). Then a property: for random pairs of policies over a small
 * vocabulary of selectors, effects and defaults, diff fails exactly when the engine's verdict for some tool name
 * and some hint combination moves towards allow (the ground truth asks `authorize` directly, in process, for
 * every name the policies can tell apart and all 16 combinations of hints). Last, for random pairs of policies with
 * `commands:` and `paths:`, every witness the exact diff reports escalates, and where it reports none for a tool no
 * sampled call of that tool escalates.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/decide/compile.js';
import { compareRestrictiveness } from '../../src/compile/decide/document.js';
import { HINT_COMBINATIONS } from '../../src/compile/report/grid.js';
import { loadPolicySources } from '../../src/compile/language/load.js';
import type { Hints } from '../../src/compile/types.js';
import { authorize } from '../../src/engine/authorize.js';
import { dshMode, json, makeTree, ROOT } from '../cli/run.js';
import { check, measured } from './config.js';

const PLAN = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');

/** A copy of plan that replaces it and also allows idempotent tools. */
const WIDER_PLAN = PLAN.replace('mode: plan\n', 'mode: plan\noverride: true\n').replace(
  'effects:\n  readOnly: allow\n',
  'effects:\n  readOnly: allow\n  idempotent: allow\n',
);

/** A catalog without idempotent tools: nothing in it reaches `effects.idempotent`. */
const CATALOG = { tools: [{ name: 'lookup', annotations: { readOnlyHint: true } }, { name: 'deploy' }] };

type DiffJson = {
  rows: {
    mode: string;
    tool: { label: string; hints?: Required<Hints> };
    before: { decision: string };
    after: { decision: string; rule: { selector: string } };
    change: string;
  }[];
};

describe('diff and matrix probe every hint combination', () => {
  it('an override of plan that allows idempotent tools is an escalation', async () => {
    await measured('diff-probes', 'diff: a widening by effects.idempotent', null, async () => {
      const dir = makeTree({ 'old/plan.yaml': PLAN, 'new/plan.yaml': WIDER_PLAN, 'tools.json': CATALOG });
      // The widening is real: the engine allows an idempotent MCP tool under NEW and denies it under OLD.
      const upsert = [
        'plan',
        'mcp__db__upsert',
        '--annotations',
        'idempotent,openWorld=false,destructive=false',
      ];
      expect(dshMode(['check', ...upsert, 'old', '--no-builtin'], dir).stdout).toMatch(/: deny$/m);
      expect(dshMode(['check', ...upsert, 'new', '--no-builtin'], dir).stdout).toMatch(/: allow$/m);

      const args = ['diff', 'old', 'new', '--no-builtin', '--tools', 'tools.json'];
      const failed = dshMode([...args, '--fail-on-escalation'], dir);
      expect(failed.code).toBe(1);
      // The exact diff's witness: a name no rule names, with the one hint that widens.
      expect(failed.stderr).toMatch(
        /mode `plan`, tool `\S+ \[idempotent\]`: deny → allow by `effects\.idempotent` at new\/plan\.yaml:/,
      );
      const report = json(dshMode([...args, '--format', 'json'], dir)) as unknown as DiffJson;
      const row = report.rows.find((r) => r.tool.label === '(other tool) [idempotent]');
      expect(row).toMatchObject({
        change: 'escalation',
        tool: { hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false } },
      });
      // The matrix of NEW shows the same row; the one of OLD needs none (hints change nothing there but readOnly).
      const matrix = dshMode(['matrix', 'new', '--no-builtin', '--tools', 'tools.json'], dir).stdout;
      expect(matrix).toMatch(/^\(other tool\) \[idempotent\] +allow$/m);
      expect(dshMode(['matrix', 'old', '--no-builtin', '--tools', 'tools.json'], dir).stdout).not.toContain(
        '[idempotent]',
      );
      return { runs: 1, violations: 0 };
    });
  });

  it('dropping `mcp__*: ask` for `effects: {readOnly: allow}` is an escalation for read-only MCP tools', async () => {
    await measured('diff-probes', 'diff: a glob replaced by effects.readOnly', null, async () => {
      const dir = makeTree({
        'old/review.yaml':
          'mode: review\ntools:\n  read: allow\n  "mcp__*": ask\neffects:\n  readOnly: allow\ndefault: deny\n',
        'new/review.yaml':
          'mode: review\ntools:\n  read: allow\neffects:\n  readOnly: allow\ndefault: deny\n',
      });
      const result = dshMode(['diff', 'old', 'new', '--fail-on-escalation'], dir);
      expect(result.code).toBe(1);
      // The witness is the shortest name `mcp__*` matches, with the hint that widens.
      expect(result.stderr).toContain(
        'mode `review`, tool `mcp__ [readOnly]`: ask → allow by `effects.readOnly` at new/review.yaml:5:3',
      );
      // Without the hints the same glob narrows: both rows are listed.
      expect(result.stdout).toMatch(/^↓ review +mcp__\* +ask → deny/m);
      const matrix = dshMode(['matrix', 'old'], dir).stdout;
      // The matrix shows the read-only probe because plan decides it differently; review asks either way.
      expect(matrix).toMatch(/^mcp__\* +deny +ask$/m);
      expect(matrix).toMatch(/^mcp__\* \[readOnly\] +allow +ask$/m);
      expect(matrix).not.toContain('mcp__* [none]');
      return { runs: 1, violations: 0 };
    });
  });

  it('a `[[:alpha:]]` glob is searched by its members, so an escalation on it shows', async () => {
    await measured('diff-probes', 'diff: a POSIX-class glob is compared', null, async () => {
      const dir = makeTree({
        'old/review.yaml': 'mode: review\ntools:\n  "[[:alpha:]]_*": deny\ndefault: deny\n',
        'new/review.yaml': 'mode: review\ntools:\n  "[[:alpha:]]_*": allow\ndefault: deny\n',
      });
      const result = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(result.code).toBe(1);
      // The witness is a shortest name the class matches: a letter, then `_`.
      expect(result.stderr).toMatch(/tool `[A-Za-z]_`: deny → allow/);
      return { runs: 1, violations: 0 };
    });
  });

  it('diff fails exactly when some name and hint combination escalates (property)', async () => {
    const SELECTORS = ['read', 'mcp__db__upsert', 'mcp__*', 'web_*'];
    /** Every name the selectors can tell apart: each literal, each glob's sample, and a name none matches. */
    const NAMES = ['read', 'mcp__db__upsert', 'mcp__x', 'web_x', 'other'];
    const HINTS = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;
    const decision = fc.constantFrom('allow', 'ask', 'deny');
    const document = fc.record(
      {
        mode: fc.constantFrom('plan', 'review'),
        override: fc.boolean(),
        tools: fc.dictionary(fc.constantFrom(...SELECTORS), decision, { maxKeys: 3 }),
        effects: fc.dictionary(fc.constantFrom(...HINTS), decision, { maxKeys: 2 }),
        default: decision,
      },
      { requiredKeys: ['mode', 'tools', 'effects'] },
    );
    const side = fc.array(document, { minLength: 1, maxLength: 2 });
    const write = (dir: string, docs: object[]) => {
      mkdirSync(dir);
      docs.forEach((d, i) => writeFileSync(join(dir, `${i}.json`), JSON.stringify(d)));
    };
    const escalates = async (dir: string): Promise<boolean> => {
      const load = async (p: string) =>
        compilePolicies((await loadPolicySources([join(dir, p)], { builtin: false })).documents);
      const [before, after] = [await load('old'), await load('new')];
      const modes = new Set([...before.modes.keys(), ...after.modes.keys()]);
      const calls = NAMES.flatMap((name) => [
        { name },
        ...HINT_COMBINATIONS.map((hints) => ({ name, hints })),
      ]);
      for (const mode of modes)
        for (const call of calls) {
          const was = authorize(before, mode, call).decision;
          const now = authorize(after, mode, call).decision;
          if (compareRestrictiveness(now, was) < 0) return true;
        }
      return false;
    };
    await check(
      'diff-probes',
      'diff: escalation by any name and hints is caught',
      fc.asyncProperty(side, side, async (old, now) => {
        const dir = makeTree({ 'tools.json': { tools: [{ name: 'read' }] } });
        write(join(dir, 'old'), old);
        write(join(dir, 'new'), now);
        const expected = await escalates(dir);
        const run = dshMode(
          ['diff', 'old', 'new', '--no-builtin', '--tools', 'tools.json', '--fail-on-escalation'],
          dir,
        );
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(expected ? 1 : 0);
      }),
      [30, 300],
      'random old/new pairs of 1–2 documents over 4 selectors, 4 hints and 3 decisions; ground truth from authorize',
    );
  });

  it('diff finds every command and path escalation, each with a witness that escalates (property)', async () => {
    const WORDS = ['git', 'log', 'push', '-o', '--output=x', 'x', '-uo', '$X'];
    const PATTERN_WORDS = ['git', 'log', 'push', '-o*', '--o*', '*', '**', 'x'];
    const PATH_PATTERNS = ['src/**', 'src*/**', '.env*', '.env', '**/x', '*.md', '/etc/**'];
    const PATHS = ['src/a', 'srcx/a', '.env', '.envx', '.ENV', 'x', 'a/x', 'r.md', '/etc/p', '.'];
    const decision = fc.constantFrom('allow', 'ask', 'deny');
    const pattern = fc
      .array(fc.constantFrom(...PATTERN_WORDS), { minLength: 1, maxLength: 3 })
      .map((ws) => ws.join(' '));
    const team = fc.record({
      mode: fc.constant('team'),
      tools: fc.record({
        bash: fc.record(
          { decision, commands: fc.dictionary(pattern, decision, { minKeys: 1, maxKeys: 4 }) },
          { requiredKeys: ['commands'] },
        ),
        read: fc.record(
          {
            decision,
            paths: fc.dictionary(fc.constantFrom(...PATH_PATTERNS), decision, { minKeys: 1, maxKeys: 3 }),
          },
          { requiredKeys: ['paths'] },
        ),
      }),
      default: decision,
    });
    const command = fc
      .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 })
      .map((ws) => ws.join(' '));
    const script = fc.array(command, { minLength: 1, maxLength: 2 }).map((cs) => cs.join('; '));
    await check(
      'diff-probes',
      'diff: command and path escalations are exact, every witness escalates',
      fc.asyncProperty(
        team,
        team,
        fc.array(script, { minLength: 10, maxLength: 10 }),
        async (old, now, scripts) => {
          const dir = makeTree({ 'old/team.json': old, 'new/team.json': now });
          const load = async (p: string) =>
            compilePolicies((await loadPolicySources([join(dir, p)], { builtin: false })).documents);
          const [before, after] = [await load('old'), await load('new')];
          const report = json(
            dshMode(['diff', 'old', 'new', '--no-builtin', '--format', 'json'], dir),
          ) as unknown as {
            escalations: {
              mode: string;
              tool: { name: string; hints?: Hints; arguments?: Record<string, string> };
            }[];
          };
          for (const w of report.escalations) {
            const call = { name: w.tool.name, hints: w.tool.hints, arguments: w.tool.arguments };
            const was = authorize(before, w.mode, call).decision;
            const is = authorize(after, w.mode, call).decision;
            expect(compareRestrictiveness(is, was), JSON.stringify(w)).toBeLessThan(0);
          }
          const reported = new Set(report.escalations.map((w) => w.tool.name));
          const calls = [
            ...(reported.has('bash')
              ? []
              : scripts.map((c) => ({ name: 'bash', arguments: { command: c } }))),
            ...(reported.has('read') ? [] : PATHS.map((p) => ({ name: 'read', arguments: { path: p } }))),
          ];
          for (const call of calls) {
            const was = authorize(before, 'team', call).decision;
            const is = authorize(after, 'team', call).decision;
            expect(compareRestrictiveness(is, was), JSON.stringify(call)).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      [20, 200],
      'random old/new team policies (commands and paths); witnesses and sampled calls re-decided with authorize',
    );
  }, 600_000);
});
