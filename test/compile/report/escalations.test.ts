/**
 * The exact diff (`src/compile/report/escalations.ts`): escalations are found over the classes of calls the
 * patterns tell apart, not sampled, and each is shown by a shortest witness that really escalates. Every witness
 * any test here sees is re-decided with the real `decideCall` of both sides. Real compiler, real policy files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicies, type CompiledPolicySet } from '../../../src/compile/decide/compile.js';
import { decideCall } from '../../../src/compile/decide/call.js';
import { RESTRICTIVENESS } from '../../../src/compile/decide/restrictiveness.js';
import { loadPolicyText } from '../../../src/compile/language/load.js';
import { builtinToolCatalog } from '../../../src/compile/catalog/catalog.js';
import {
  exactDiff,
  type ExactCall,
  type ExactDiff,
  type ExactFinding,
} from '../../../src/compile/report/escalations.js';
import type { Decision } from '../../../src/compile/types.js';

const ROOT = join(import.meta.dirname, '../../..');
const PLAN = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');

function compile(...texts: string[]): CompiledPolicySet {
  return compilePolicies(texts.flatMap((t, i) => loadPolicyText(t, `p${i}.yaml`).documents));
}

function decide(set: CompiledPolicySet, mode: string, call: ExactCall): Decision {
  const policy = set.get(mode);
  if (policy === undefined) return 'deny';
  return decideCall(policy, { name: call.name, hints: call.hints, arguments: call.arguments }).decision;
}

/** The diff, with every witness checked against the real decision of both sides. */
function diff(before: CompiledPolicySet, after: CompiledPolicySet): ExactDiff {
  const result = exactDiff(before, after, { catalog: builtinToolCatalog() });
  const check = (f: ExactFinding, up: boolean) => {
    const was = decide(before, f.mode, f.call);
    const now = decide(after, f.mode, f.call);
    expect([was, now], f.label).toEqual([f.before, f.after]);
    const order = RESTRICTIVENESS[now] - RESTRICTIVENESS[was];
    expect(up ? order < 0 : order > 0, f.label).toBe(true);
  };
  for (const f of result.escalations) check(f, true);
  for (const f of result.narrowings) check(f, false);
  return result;
}

const labels = (fs: readonly ExactFinding[]) => fs.map((f) => `${f.mode}: ${f.label} ${f.before}→${f.after}`);

describe('commands', () => {
  it('catches the decoys: `sort ** --o* **` replaced by two patterns that deny only the probes', () => {
    const decoy = PLAN.replace(
      /^ {6}"sort \*\* --o\* \*\*":.*$/m,
      '      "sort ** --output=x **": deny\n      "sort ** --o **": deny',
    );
    expect(decoy).not.toBe(PLAN);
    const result = diff(compile(PLAN), compile(decoy));
    expect(result.limits.filter((l) => l.incomplete)).toEqual([]);
    expect(result.escalations).toHaveLength(1);
    const [f] = result.escalations;
    expect(f).toMatchObject({ mode: 'plan', kind: 'command', before: 'deny', after: 'allow' });
    // A shortest `sort` whose option starts with `--o` and is neither decoy, as GNU sort reads `--output=FILE`.
    expect(f!.call.arguments!.command).toMatch(/^sort --o\S$/);
    // And the real attack is one of the class:
    const attack = { name: 'bash', arguments: { command: 'sort --output=out a' } };
    expect([decide(compile(PLAN), 'plan', attack), decide(compile(decoy), 'plan', attack)]).toEqual([
      'deny',
      'allow',
    ]);
  });

  it('reports nothing for a policy against itself, or against its patterns reordered', () => {
    const text =
      'mode: m\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git log **": allow\n      "git log ** --output* **": deny\n';
    const reordered =
      'mode: m\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git log ** --output* **": deny\n      "git log **": allow\n';
    for (const other of [text, reordered]) {
      const result = diff(compile(text), compile(other));
      expect([...result.escalations, ...result.narrowings]).toEqual([]);
    }
  });

  it('knows that bundles split: `-o*` replaced by `-o` is no escalation (`-ofile` splits to `-o -f …`)', () => {
    const rule = (deny: string) =>
      `mode: m\ntools:\n  bash:\n    decision: deny\n    commands:\n      "sort **": allow\n      "${deny}": deny\n`;
    const before = compile(rule('sort ** -o* **'));
    const after = compile(rule('sort ** -o **'));
    expect(diff(before, after).escalations).toEqual([]);
    const bundle = { name: 'bash', arguments: { command: 'sort -ofile a' } };
    expect(decide(after, 'm', bundle)).toBe('deny');
    // Dropping the deny altogether is one, shown by its shortest member.
    expect(labels(diff(before, compile(rule('sort ** -q **'))).escalations)).toEqual([
      'm: bash command="sort -o" deny→allow',
    ]);
  });

  it('judges unknown words: a deny word matches `$X`, an allow word never does', () => {
    const rule = (patterns: string) =>
      `mode: m\ntools:\n  bash:\n    decision: ask\n    commands:\n${patterns}`;
    const before = rule('      "rm **": deny\n');
    const after = rule('      "rm x": deny\n');
    const result = diff(compile(before), compile(after));
    expect(result.escalations.length).toBeGreaterThan(0);
    for (const command of ['rm', 'rm y']) {
      const call = { name: 'bash', arguments: { command } };
      expect([decide(compile(before), 'm', call), decide(compile(after), 'm', call)]).toEqual([
        'deny',
        'ask',
      ]);
    }
    // `rm $X` may be `rm x`: the deny word matches the unknown one, so it stays denied.
    const unknown = { name: 'bash', arguments: { command: 'rm $X' } };
    expect([decide(compile(before), 'm', unknown), decide(compile(after), 'm', unknown)]).toEqual([
      'deny',
      'deny',
    ]);
  });

  it('finds a script that escalates though none of its commands does alone (a rule that abstains)', () => {
    // Old: `ls` is allowed by `bash`'s own table; `rm` falls to `*` (which allows it); together the rest of the
    // document judges the whole script, and `*` denies `ls`. New allows both in `bash` itself.
    const old = [
      'mode: m',
      'tools:',
      '  bash:',
      '    commands:',
      '      "ls": allow',
      '  "*":',
      '    decision: deny',
      '    commands:',
      '      "rm": allow',
      '',
    ].join('\n');
    const now = old.replace('      "ls": allow', '      "ls": allow\n      "rm": allow');
    const before = compile(old);
    const after = compile(now);
    for (const single of ['ls', 'rm']) {
      const call = { name: 'bash', arguments: { command: single } };
      expect(decide(before, 'm', call)).toBe(decide(after, 'm', call));
    }
    const result = diff(before, after);
    const scripts = result.escalations
      .filter((f) => f.call.name === 'bash')
      .map((f) => f.call.arguments?.command);
    expect(scripts).toContain('ls; rm');
  });

  it('a script that cannot be analysed is judged by the base, so a base that widens escalates even under `**: deny`', () => {
    const rule = (base: Decision) =>
      `mode: m\ntools:\n  bash:\n    decision: ${base}\n    commands:\n      "**": deny\n`;
    const result = diff(compile(rule('deny')), compile(rule('ask')));
    // Every command is denied on both sides; what cannot be analysed (no argument, `>x`) reads the base.
    expect(result.escalations.length).toBeGreaterThan(0);
    // (`ls > out` stays denied: `ls` is a command, and `**` denies it on both sides.)
    for (const command of ['>x', '(']) {
      const call = { name: 'bash', arguments: { command } };
      expect([decide(compile(rule('deny')), 'm', call), decide(compile(rule('ask')), 'm', call)]).toEqual([
        'deny',
        'ask',
      ]);
    }
  });
});

describe('names and hints', () => {
  it('catches a glob widened under a more specific one, with a name of the glob', () => {
    const before = compile('mode: m\ntools:\n  "mcp__*": deny\n  "mcp__db__*": allow\ndefault: deny\n');
    const after = compile('mode: m\ntools:\n  "mcp__*": allow\n  "mcp__db__*": allow\ndefault: deny\n');
    const result = diff(before, after);
    expect(labels(result.escalations)).toEqual(['m: mcp__ deny→allow']);
  });

  it('catches a class of names no sample would pick: a glob that carves out every sample', () => {
    // `*` allows, and a set of deny globs covers the obvious fills; `?` names of one odd character remain.
    const deny = ['x*', 'q*', 'z*', '0*', '_*', '-*', '.*', 'a*'].map((g) => `  "${g}": deny`).join('\n');
    const before = compile(`mode: m\ntools:\n${deny}\n  "*": deny\ndefault: deny\n`);
    const after = compile(`mode: m\ntools:\n${deny}\n  "*": allow\ndefault: deny\n`);
    const result = diff(before, after);
    // The built-in tools are names of their own; every other name that widens is one odd character.
    const builtin = new Set(builtinToolCatalog().map((t) => t.name));
    const others = result.escalations.filter((f) => !builtin.has(f.call.name));
    expect(others).toHaveLength(1);
    expect(others[0]!.call.name).toHaveLength(1);
  });

  it('catches effects that widen one hint combination', () => {
    const before = compile('mode: m\ntools:\n  read: allow\neffects:\n  readOnly: allow\ndefault: deny\n');
    const after = compile(
      'mode: m\ntools:\n  read: allow\neffects:\n  readOnly: allow\n  idempotent: ask\ndefault: deny\n',
    );
    const result = diff(before, after);
    expect(result.escalations.length).toBeGreaterThan(0);
    for (const f of result.escalations) {
      expect(f.call.hints?.idempotent).toBe(true);
      expect(f.call.hints?.readOnly).toBe(false);
    }
    expect(result.escalations.some((f) => /\[idempotent\]$/.test(f.label))).toBe(true);
  });

  it('a mode only the new side defines escalates from deny', () => {
    const result = diff(
      compile('mode: a\ndefault: deny\n'),
      compile('mode: a\ndefault: deny\n', 'mode: b\ndefault: ask\n'),
    );
    expect(result.escalations.every((f) => f.mode === 'b' && f.before === 'deny' && f.after === 'ask')).toBe(
      true,
    );
    expect(result.escalations.length).toBeGreaterThan(0);
  });

  it('an override that replaces a stricter document escalates; a narrowing document does not', () => {
    const base = 'mode: m\ntools:\n  write: deny\ndefault: deny\n';
    const narrowing = 'mode: m\ntools:\n  write: allow\n';
    const override = 'mode: m\noverride: true\ntools:\n  write: allow\ndefault: deny\n';
    expect(diff(compile(base), compile(base, narrowing)).escalations).toEqual([]);
    expect(labels(diff(compile(base), compile(base, override)).escalations)).toContain('m: write deny→allow');
  });
});

describe('paths', () => {
  const read = (patterns: string, base = 'allow') =>
    `mode: m\ntools:\n  read:\n    decision: ${base}\n    paths:\n${patterns}default: deny\n`;

  it('catches `.env*` narrowed to `.env`, with the path that now reads', () => {
    const result = diff(compile(read('      ".env*": deny\n')), compile(read('      ".env": deny\n')));
    expect(labels(result.escalations)).toEqual(['m: read path=".envx" deny→allow']);
  });

  it('catches a folder widened by one character: `src/**` to `src*/**`', () => {
    const write = (p: string) => `mode: m\ntools:\n  write:\n    paths:\n      "${p}": allow\n`;
    const result = diff(compile(write('src/**')), compile(write('src*/**')));
    expect(labels(result.escalations)).toEqual(['m: write path="srcx/x" deny→allow']);
  });

  it('keeps the case rule: a deny that matched `.ENV` case-insensitively, replaced by an exact allow-list', () => {
    const before = read('      ".env*": deny\n');
    const after = read('      ".env*": deny\n      ".ENV": allow\n');
    // `.ENV` is still denied (deny patterns match either case, and `.env*` is more specific).
    expect(diff(compile(before), compile(after)).escalations).toEqual([]);
  });

  it('catches an absolute deny dropped, with an absolute witness', () => {
    const result = diff(
      compile(read('      "/etc/**": deny\n', 'ask')),
      compile(read('      "/etc/passwd": deny\n', 'ask')),
    );
    expect(result.escalations.map((f) => f.call.arguments?.path)).toEqual(['/etc/x']);
  });

  it('catches a globstar in the middle: `a/**/b` allow replaced by `a/**` allow', () => {
    const write = (p: string) => `mode: m\ntools:\n  write:\n    paths:\n      "${p}": allow\n`;
    const result = diff(compile(write('a/**/b')), compile(write('a/**')));
    expect(result.escalations.map((f) => f.call.arguments?.path)).toEqual(['a/x']);
    expect(diff(compile(write('a/**')), compile(write('a/**/b'))).escalations).toEqual([]);
  });
});

describe('property: no escalation reported means none sampled, and every witness escalates', () => {
  const WORDS = ['git', 'log', 'push', '-o', '--output', 'x', '-uo'];
  const PATTERN_WORDS = ['git', 'log', 'push', '-o*', '--o*', '*', '**', 'x'];
  const PATH_PATTERNS = ['src/**', 'src*/**', '.env*', '.env', '**/x', '*.md', 'a/**/b', '/etc/**', 'docs/*'];
  const PATHS = [
    'src/a',
    'srcx/a',
    '.env',
    '.envx',
    '.ENV',
    'x',
    'a/x',
    'a/b',
    'a/c/b',
    'r.md',
    'docs/r.md',
    '/etc/p',
    '.',
    '../x',
  ];
  const decision = fc.constantFrom<Decision>('allow', 'ask', 'deny');
  const pattern = fc
    .array(fc.constantFrom(...PATTERN_WORDS), { minLength: 1, maxLength: 3 })
    .map((ws) => ws.join(' '));
  const commands = fc.dictionary(pattern, decision, { minKeys: 1, maxKeys: 4 });
  const rule = fc.record({ decision, commands }, { requiredKeys: ['commands'] });
  // A rule for every other tool: a decision, or patterns without a base (which abstain, so scripts join).
  const other = fc.option(fc.oneof(decision, fc.record({ commands })), { nil: undefined });
  const paths = fc.record(
    {
      decision,
      paths: fc.dictionary(fc.constantFrom(...PATH_PATTERNS), decision, { minKeys: 1, maxKeys: 3 }),
    },
    { requiredKeys: ['paths'] },
  );
  const doc = fc.record({ bash: rule, other, read: paths, override: fc.boolean(), base: fc.boolean() });
  type Doc = { bash: object; other?: unknown; read: object; override: boolean; base: boolean };
  // A side is one or two documents of the mode: the ceiling, `override`, and a document without `default`.
  const side = fc.array(doc, { minLength: 1, maxLength: 2 });
  const text = (d: Doc) =>
    JSON.stringify({
      mode: 'm',
      ...(d.override ? { override: true } : {}),
      tools: { bash: d.bash, read: d.read, ...(d.other === undefined ? {} : { '*': d.other }) },
      ...(d.base ? { default: 'deny' } : {}),
    });
  const compileSide = (docs: Doc[]) =>
    compilePolicies(docs.flatMap((d, i) => loadPolicyText(text(d), `${i}.json`).documents));
  const command = fc
    .array(fc.constantFrom(...WORDS, '$X', "''"), { minLength: 1, maxLength: 4 })
    .map((ws) => ws.join(' '));
  const script = fc.array(command, { minLength: 1, maxLength: 3 }).map((cs) => cs.join('; '));

  it('holds for random small policy pairs (bounded runs)', () => {
    fc.assert(
      fc.property(side, side, fc.array(script, { minLength: 20, maxLength: 20 }), (a, b, samples) => {
        const before = compileSide(a);
        const after = compileSide(b);
        const result = diff(before, after);
        expect(result.limits.filter((l) => l.incomplete)).toEqual([]);
        const escalated = new Set(result.escalations.map((f) => f.call.name));
        const calls = [
          ...(escalated.has('bash')
            ? []
            : [...samples, '', '>x'].map((command) => ({ name: 'bash', arguments: { command } }))),
          ...(escalated.has('read') ? [] : PATHS.map((path) => ({ name: 'read', arguments: { path } }))),
        ];
        for (const call of calls) {
          const was = decide(before, 'm', call);
          const now = decide(after, 'm', call);
          expect(
            RESTRICTIVENESS[now] >= RESTRICTIVENESS[was],
            `${a.map(text).join('\n')}\n--\n${b.map(text).join('\n')}\n${JSON.stringify(call)}`,
          ).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
