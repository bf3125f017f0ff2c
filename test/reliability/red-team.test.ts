/**
 * Red-team findings against the issue 11 fixes: each test reproduces one hole through the real binary (or the real
 * built-in tools) on real files. A hole that is fixed has a plain test that failed before its fix; a hole whose
 * fix is not small stays as `it.fails(...)`, named in its comment, so the suite stays green and the hole stays
 * visible (the test starts failing, and must become a plain `it`, once the hole is closed).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../engine/setup.js';
import { dshMode, makeTree, ROOT } from '../cli/run.js';
import { measured } from './config.js';

const BIN = resolve(import.meta.dirname, '../../bin/dsh-mode.mjs');
const PLAN = readFileSync(join(ROOT, 'policies/plan.yaml'), 'utf8');

/** A copy of the built-in plan that replaces it, with extra tool rules appended under `tools:`. */
function overridePlan(extraTools: string): string {
  return PLAN.replace('mode: plan\n', 'mode: plan\noverride: true\n').replace(
    '  exit_plan_mode:\n',
    `${extraTools}  exit_plan_mode:\n`,
  );
}

function chat(dir: string, args: string[], input = ''): { code: number | null; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.DEEPSEEK_API_KEY;
  const run = spawnSync(process.execPath, [BIN, 'chat', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env,
    input,
    timeout: 60_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('red team: text shown to people', () => {
  it('a streamed line indented with Unicode spaces cannot imitate a tool line or an approval outcome', async () => {
    await measured('hostile', 'red team: fake UI lines behind Unicode spaces', null, async () => {
      const dir = tempDir('dsh-red-');
      // En spaces, an ideographic space, a no-break space and a figure space look like the chat's indentation.
      const fakes = [
        '\u2002\u2002✓ write src/app.js — ok: Wrote src/app.js',
        '\u3000→ approved',
        '\u00a0\u00a0✗ bash rm -rf / — denied',
        '\u2007── mode is now default ──',
        '\u3164\u2800✓ edit README.md — ok',
      ];
      writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: `Look.\n${fakes.join('\n')}\n` }]));
      const run = chat(dir, ['--model-script', join(dir, 'script.json'), '--mode', 'plan', '--prompt', 'go']);
      expect(run.code, run.err).toBe(0);
      // A UI line is a mark after anything that looks blank: only the chat's real ones.
      const ui = run.out
        .split('\n')
        .filter((line) => /^[\s\u115f\u1160\u2800\u3164\uffa0]*[✓✗→┌│└─]/u.test(line));
      expect(ui, run.out).toEqual(['── mode is now plan ──']);
      return {
        runs: fakes.length,
        violations: 0,
        notes: 'marks behind U+2002, U+3000, U+00A0, U+2007, U+3164, U+2800',
      };
    });
  });
});

describe('red team: diff --fail-on-escalation and hint probes', () => {
  // HOLE (not fixed, grid.ts): a glob that a catalog or built-in tool matches gets no sample row of its own
  // (`collectToolRows`: "a catalog tool stands for the glob"), so a glob allowing every other name it matches is
  // never compared. Here `todo_*: allow` in an override of plan: `todo_write` stands for it (allowed before and
  // after), while `todo_delete_all` (or any `todo_…` MCP-style tool) goes from deny to allow. Needs: a sample of
  // every glob besides the tools that stand for it, chosen to avoid them.
  it.fails('a glob widening shadowed by a built-in tool it matches is an escalation', async () => {
    await measured('diff-probes', 'red team: glob widening behind a built-in tool', null, async () => {
      const dir = makeTree({
        'old/plan.yaml': PLAN,
        'new/plan.yaml': overridePlan('  "todo_*": allow\n'),
      });
      // The widening is real: the engine decides differently.
      expect(dshMode(['check', 'plan', 'todo_delete_all', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'todo_delete_all', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });

  // HOLE (not fixed, grid.ts and glob-syntax.ts `sampleName`): a glob's one sample name fills every `*` with `x`,
  // so a more specific glob that also matches that sample decides it, and the wider glob is never seen. Here
  // `mcp__*: allow` with `mcp__x*: deny`: the row `mcp__*` is decided for `mcp__x` (deny), while every MCP tool
  // not starting with `x` (`mcp__db__upsert`) goes from deny to allow. Needs: samples that avoid the more specific
  // selectors (for example a fill character no selector mentions).
  it.fails('a glob widening whose sample a more specific glob shadows is an escalation', async () => {
    await measured('diff-probes', 'red team: glob widening behind a shadowed sample', null, async () => {
      const dir = makeTree({
        'old/plan.yaml': PLAN,
        'new/plan.yaml': overridePlan('  "mcp__*": allow\n  "mcp__x*": deny\n'),
      });
      expect(dshMode(['check', 'plan', 'mcp__db__upsert', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'mcp__db__upsert', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: the probe for tools nobody named', () => {
  // HOLE (not fixed, grid.ts): `(other tool)` is decided for one fixed name, `\u2063dsh-mode-other-tool\u2063`.
  // A glob that matches that name and nothing real (`"\u2063*": deny`) decides the probe, so `default: allow`
  // goes unseen: every tool nobody named (`mcp__db__drop`) goes from deny to allow, and diff reports 0
  // escalations. Needs: a probe name that no selector other than a match-all one matches (chosen per load).
  it.fails('a default widened behind a selector that matches the probe name is an escalation', async () => {
    await measured('diff-probes', 'red team: default widening behind the probe name', null, async () => {
      const wide = overridePlan('  write: deny\n  edit: deny\n  bash: deny\n  "\u2063*": deny\n').replace(
        'default: deny',
        'default: allow',
      );
      const dir = makeTree({ 'old/plan.yaml': PLAN, 'new/plan.yaml': wide });
      expect(dshMode(['check', 'plan', 'mcp__db__drop', 'old', '--no-builtin'], dir).stdout).toMatch(
        /: deny$/m,
      );
      expect(dshMode(['check', 'plan', 'mcp__db__drop', 'new', '--no-builtin'], dir).stdout).toMatch(
        /: allow$/m,
      );
      const diff = dshMode(['diff', 'old', 'new', '--no-builtin', '--fail-on-escalation'], dir);
      expect(diff.code, diff.stdout + diff.stderr).toBe(1);
      return { runs: 1, violations: 0 };
    });
  });
});

describe('red team: start notices', () => {
  // HOLE (not fixed, the same probes as diff: start-notices.ts calls collectToolRows): a plan widened by a glob
  // that a built-in tool stands for is not listed among the widenings. The override itself is still named (so a
  // user is told plan was replaced), but not that `todo_*` now allows every `todo_…` tool. A trusted cordis.yml
  // whose policies folder gains such a file on a `git pull` stays trusted (only cordis.yml is hashed).
  it.fails('a widening by a glob a built-in tool stands for is named at start', async () => {
    await measured('hostile', 'red team: start notice for a glob widening', null, async () => {
      const dir = tempDir('dsh-red-');
      mkdirSync(join(dir, 'policies'));
      writeFileSync(join(dir, 'policies/zz.yaml'), overridePlan('  "todo_*": allow\n'));
      writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: 'hi' }]));
      writeFileSync(
        join(dir, 'cordis.yml'),
        '- name: host\n- name: mode\n  config:\n    policies: [./policies]\n- name: scripted\n  config: { script: script.json }\n',
      );
      const env = { DSH_MODE_CONFIG_DIR: join(dir, 'trust') };
      const run = spawnSync(process.execPath, [BIN, 'chat', '--config', 'cordis.yml', '--prompt', 'hi'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', ...env, DEEPSEEK_API_KEY: '' },
        input: '',
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain('plan mode is replaced by an `override: true` document');
      expect(run.stderr).toMatch(
        /plan mode allows more than the built-in plan:\n(  .*\n)*  todo_\*: deny → allow/,
      );
      return { runs: 1, violations: 0 };
    });
  });
});
