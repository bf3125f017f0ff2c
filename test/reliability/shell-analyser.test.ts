/**
 * Argument rules, the shell analyser: scripts composed at random from the bypass classes (chaining,
 * substitutions, process substitution, subshells, groups, `if`, wrappers with their options, `bash -c`, `eval`,
 * `find -exec`, `xargs`) around a hidden `rm`, each run under real bash through logging stubs. Whatever the
 * composition, the analyser names every program that ran or calls the script unanalysable; and a hostile
 * script (deep nesting, long lists) is analysed in bounded time.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractCommands, matchCommand } from '../../src/compile/shell/index.js';
import { makeHarness, type Harness } from '../compile/shell/harness.js';
import { check, measured } from './config.js';

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** One step that hides a script inside another construct. */
const steps: ((s: string) => string)[] = [
  (s) => `git log; ${s}`,
  (s) => `git log && ${s}`,
  (s) => `false || ${s}`,
  (s) => `git log | ${s}`,
  (s) => `echo $(${s})`,
  (s) => `cat <(${s})`,
  (s) => `(${s})`,
  (s) => `{ ${s}; }`,
  (s) => `if true; then ${s}; fi`,
  (s) => `case a in a) ${s};; esac`,
  (s) => `bash -x -c ${sq(s)}`,
  (s) => `sh -c ${sq(s)}`,
  (s) => `eval ${sq(s)}`,
  (s) => `time ${s}`,
  (s) => `! ${s}`,
  (s) => `find . -maxdepth 0 -exec bash -c ${sq(s)} \\;`,
  (s) => `echo . | xargs -I{} sh -c ${sq(s)}`,
  (s) => `cat <<EOF\n$(${s})\nEOF`,
  (s) => `git log $(${s}) --oneline`,
  (s) => `[[ -n "$(${s})" ]]`,
];
/** Wrappers that take a simple command, not a list. */
const wrappers = [
  'env',
  'env -u HOME --',
  'sudo',
  'sudo -u root',
  'command',
  'exec',
  'nice -n 5',
  'nohup',
  'timeout 5',
  'timeout -s KILL 5',
  'stdbuf -oL',
  'setsid',
  'flock lockfile',
];

const scriptArb = fc
  .tuple(
    fc.constantFrom(...wrappers, ''),
    fc.array(fc.nat(steps.length - 1), { maxLength: 4 }),
    fc.constantFrom(
      'rm x',
      'rm -rf x',
      '/usr/bin/env rm x',
      'find . -name x -exec rm {} \\;',
      'echo x | xargs rm',
    ),
  )
  .map(([wrapper, path, payload]) =>
    path.reduce((s, i) => steps[i]!(s), wrapper ? `${wrapper} ${payload}` : payload),
  );

let harness: Harness | undefined;
beforeAll(() => {
  harness = makeHarness();
});
afterAll(() => harness?.dispose());

describe('fuzz: the shell analyser against real bash', () => {
  it('names every program a composed bypass runs, or calls the script unanalysable', async () => {
    let runs = 0;
    let ranRm = 0;
    await check(
      'fuzz',
      'shell analyser: every program bash runs is listed, or the script is unanalysable',
      fc.property(scriptArb, (script) => {
        const ran = harness!.run(script);
        // Not every composition runs rm (dash, behind `sh -c`, has no `<(…)`); most do, checked below.
        if (ran.includes('rm')) ranRm++;
        runs++;
        const analysis = extractCommands(script);
        if (analysis.unanalysable.length > 0) return;
        const listed = analysis.commands.map((c) => c.name);
        for (const name of ran) expect(listed, script).toContain(name);
        // And so an allow for `git log **` alone never covers a script that ran rm.
        if (ran.includes('rm'))
          expect(
            analysis.commands.every((c) => matchCommand('git log **', c, { forAllow: true })),
            script,
          ).toBe(false);
      }),
      [60, 400],
      'scripts from 20 hiding steps and 13 wrapper forms around 5 rm payloads, each run under bash with logging stubs',
    );
    // The stubs work: the ground truth is not empty by accident.
    expect(ranRm).toBeGreaterThan(runs / 2);
  });
});

describe('hostile: shell scripts', () => {
  it('analyses deep nesting and long lists in bounded time without throwing', async () => {
    await measured('hostile', 'shell analyser: deep nesting and long scripts', null, async () => {
      const scripts = [
        '$('.repeat(5000) + 'rm' + ')'.repeat(5000),
        'eval '.repeat(5000) + 'rm',
        `bash -c ${sq('bash -c '.repeat(200) + 'rm')}`,
        '{ '.repeat(3000) + 'rm' + '; }'.repeat(3000),
        'a | '.repeat(20000) + 'rm',
        `echo "${'\\"'.repeat(20000)}"`,
      ];
      let violations = 0;
      for (const script of scripts) {
        const analysis = extractCommands(script);
        const safe =
          analysis.unanalysable.length > 0 ||
          analysis.commands.some((c) => c.name === 'rm') ||
          !script.includes('rm');
        if (!safe) violations++;
        expect(safe, script.slice(0, 80)).toBe(true);
      }
      return { runs: scripts.length, violations, notes: 'each either lists rm or is unanalysable' };
    });
  });
});
