/**
 * `authorize()`: the engine's pure decision. Policies are compiled from real documents (the built-in plan and
 * inline YAML); the last block mounts the real plugin on a real cordis Context and checks that the gate gives
 * the very same reasons.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { compilePolicies, type CompiledPolicySet } from '../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../src/compile/language/load.js';
import {
  authorize,
  DEFAULT_MODE_RULE,
  EXIT_PLAN_MODE_HINTS,
  UNDEFINED_MODE_RULE,
  type Verdict,
} from '../../src/engine/authorize.js';
import { createExitPlanModeTool, hintsOf, resolveModeConfig } from '../../src/engine/index.js';
import type { Agent, PreExecuteResult } from '../../src/host/index.js';
import { agentOf, setup } from './setup.js';

const REVIEW = [
  'mode: review',
  'tools:',
  '  read: allow',
  '  "mcp__*": { decision: deny, reason: Review mode does not call MCP servers. }',
  '  write: ask',
  '  edit: { decision: ask, reason: Edits are reviewed one by one. }',
  '  notes: { decision: allow, reason: Notes are harmless. }',
  '  exit_plan_mode: deny',
  'default: deny',
].join('\n');
/** Allows everything, the exit included, by its default; and by a glob with a reason in `globbed`. */
const LOOSE = 'mode: loose\ndefault: allow\n';
const GLOBBED =
  'mode: globbed\ntools:\n  "exit_*": { decision: allow, reason: Exits are fine here. }\ndefault: deny\n';
/** Denies what declares itself destructive; allows the rest. */
const CAREFUL = 'mode: careful\neffects:\n  destructive: deny\ndefault: allow\n';

const PLAN_WRITE_DENIED =
  'tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready';

async function policies(): Promise<CompiledPolicySet> {
  const builtin = await loadPolicySources([], { builtin: true });
  const inline = [REVIEW, LOOSE, GLOBBED, CAREFUL].flatMap(
    (text, i) => loadPolicyText(text, `m${i}.yaml`).documents,
  );
  return compilePolicies([...builtin.documents, ...inline]);
}

describe('authorize: the default mode', () => {
  it('allows every tool with the default-mode rule', async () => {
    const set = await policies();
    for (const name of ['write', 'bash', 'mcp__x', 'no_such_tool']) {
      expect(authorize(set, 'default', { name })).toEqual({
        decision: 'allow',
        mode: 'default',
        rule: DEFAULT_MODE_RULE,
        reason: 'the default mode has no policy',
        message: `allow "${name}" in default mode by \`(default mode)\`: the default mode has no policy`,
      });
    }
  });

  it('denies exit_plan_mode: there is no plan to approve', async () => {
    const v = authorize(await policies(), 'default', { name: 'exit_plan_mode', arguments: { plan: '# P' } });
    expect(v).toMatchObject({ decision: 'deny', mode: 'default', rule: DEFAULT_MODE_RULE });
    expect(v.reason).toBe(
      'tool "exit_plan_mode" is not available in default mode: there is no plan to approve outside a planning mode',
    );
  });

  it('never looks the default mode up in the policies', () => {
    const set = { get: () => compilePolicies(loadPolicyText(LOOSE, 'x.yaml').documents).get('loose') };
    expect(authorize(set, 'default', { name: 'exit_plan_mode' }).decision).toBe('deny');
  });
});

describe('authorize: a mode the policies do not define fails closed', () => {
  it('denies every tool, the exit and read included, and says to ask the user to switch mode', async () => {
    const set = await policies();
    for (const name of ['read', 'exit_plan_mode', 'write']) {
      const v = authorize(set, 'gone', { name, hints: { readOnly: true } });
      expect(v).toMatchObject({ decision: 'deny', mode: 'gone', rule: UNDEFINED_MODE_RULE });
      expect(v.reason).toBe(
        `tool "${name}" is not available in gone mode: this deployment does not define gone mode, so every tool is denied; ask the user to switch mode`,
      );
      expect(v.ruleReason).toBeUndefined();
    }
  });
});

describe('authorize: exit_plan_mode always asks where it is not denied', () => {
  it('asks in plan with plan’s own reason', async () => {
    const v = authorize(await policies(), 'plan', { name: 'exit_plan_mode' });
    expect(v).toMatchObject({
      decision: 'ask',
      rule: { selector: 'exit_plan_mode', file: expect.stringMatching(/policies\/plan\.yaml$/) },
      reason: "Leaving plan mode needs the user's approval of the plan.",
      ruleReason: "Leaving plan mode needs the user's approval of the plan.",
    });
  });

  it('asks where a mode allows it by its default, naming the mode', async () => {
    const v = authorize(await policies(), 'loose', { name: 'exit_plan_mode' });
    expect(v).toMatchObject({ decision: 'ask', rule: { selector: 'default' } });
    expect(v.reason).toBe('approve the plan to leave loose mode');
  });

  it('asks where a glob allows it, with the glob’s reason', async () => {
    const v = authorize(await policies(), 'globbed', { name: 'exit_plan_mode' });
    expect(v).toMatchObject({
      decision: 'ask',
      rule: { selector: 'exit_*' },
      reason: 'Exits are fine here.',
    });
  });

  it('is denied where the mode denies it, with the bare reason (no pointer at itself)', async () => {
    const v = authorize(await policies(), 'review', { name: 'exit_plan_mode' });
    expect(v).toMatchObject({ decision: 'deny', rule: { selector: 'exit_plan_mode' } });
    expect(v.reason).toBe('tool "exit_plan_mode" is not available in review mode');
  });

  it('is judged with the engine tool’s own hints unless the call declares some', async () => {
    const set = await policies();
    const tool = createExitPlanModeTool({} as never);
    expect(hintsOf(tool.annotations)).toEqual(EXIT_PLAN_MODE_HINTS);
    // Not destructive by its own hints, so `careful` does not deny it (and then it asks).
    expect(authorize(set, 'careful', { name: 'exit_plan_mode' }).decision).toBe('ask');
    expect(authorize(set, 'careful', { name: 'exit_plan_mode', hints: {} }).decision).toBe('deny');
  });
});

describe('authorize: a configured mode decides by its compiled policy', () => {
  it('denies with a pointer at exit_plan_mode where that tool is available', async () => {
    const v = authorize(await policies(), 'plan', { name: 'write' });
    expect(v).toMatchObject({ decision: 'deny', mode: 'plan', rule: { selector: 'default' } });
    expect(v.reason).toBe(PLAN_WRITE_DENIED);
    // The user reads what they can do; the pointer at the exit is for the model.
    expect(v.userReason).toBe('tool "write" is not available in plan mode until you approve a plan');
    expect(v.message).toMatch(
      /^deny "write" in plan mode by `default` at .*policies\/plan\.yaml:\d+:\d+: tool "write"/,
    );
  });

  it('denies with the rule’s own reason, and without the pointer where the exit is not available', async () => {
    const set = await policies();
    expect(authorize(set, 'review', { name: 'mcp__gh__list' })).toMatchObject({
      decision: 'deny',
      rule: { selector: 'mcp__*', file: 'm0.yaml', line: 4, column: 3 },
      reason: 'tool "mcp__gh__list" is not available in review mode: Review mode does not call MCP servers.',
      ruleReason: 'Review mode does not call MCP servers.',
    });
    expect(authorize(set, 'review', { name: 'bash' }).reason).toBe(
      'tool "bash" is not available in review mode',
    );
    // Reasons that tell the model nothing to do serve the user as they are: no second text.
    expect(authorize(set, 'review', { name: 'mcp__gh__list' }).userReason).toBeUndefined();
    expect(authorize(set, 'review', { name: 'bash' }).userReason).toBeUndefined();
    expect(authorize(set, 'default', { name: 'exit_plan_mode' }).userReason).toBeUndefined();
    expect(authorize(set, 'ghost', { name: 'read' })).toMatchObject({
      reason:
        'tool "read" is not available in ghost mode: this deployment does not define ghost mode, so every tool is denied; ask the user to switch mode',
      userReason:
        'tool "read" is not available in ghost mode: this deployment does not define ghost mode, so every tool is denied until you switch mode',
    });
  });

  it('asks with the rule’s reason, or a sentence naming the tool and the mode', async () => {
    const set = await policies();
    expect(authorize(set, 'review', { name: 'edit' })).toMatchObject({
      decision: 'ask',
      reason: 'Edits are reviewed one by one.',
    });
    expect(authorize(set, 'review', { name: 'write' })).toMatchObject({
      decision: 'ask',
      reason: 'tool "write" needs approval in review mode',
    });
    expect(authorize(set, 'review', { name: 'write' }).ruleReason).toBeUndefined();
  });

  it('allows with the rule’s reason, or a sentence naming the tool and the mode', async () => {
    const set = await policies();
    expect(authorize(set, 'review', { name: 'notes' })).toMatchObject({
      decision: 'allow',
      reason: 'Notes are harmless.',
    });
    const read: Verdict = authorize(set, 'plan', { name: 'read' });
    expect(read).toMatchObject({ decision: 'allow', reason: 'tool "read" is allowed in plan mode' });
    expect(read.subject).toBeUndefined();
  });

  it('decides by hints in the short names of the policy language', async () => {
    const set = await policies();
    const ro = authorize(set, 'plan', { name: 'mcp__gh__list_issues', hints: { readOnly: true } });
    expect(ro).toMatchObject({ decision: 'allow', rule: { selector: 'effects.readOnly' } });
    expect(authorize(set, 'plan', { name: 'mcp__gh__list_issues' }).decision).toBe('deny');
    expect(authorize(set, 'careful', { name: 'x', hints: { readOnly: true } }).decision).toBe('allow');
    expect(authorize(set, 'careful', { name: 'x' }).decision).toBe('deny');
  });
});

describe('authorize imports nothing from cordis or the host', () => {
  it('has only type imports from compile and the vocabulary, which imports nothing', () => {
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      // Type-only imports load nothing at run time, so only value imports are followed.
      for (const [, spec] of text.matchAll(/^(?:import|export)(?! type\b)[^'"]*from '([^']+)'/gm)) {
        expect(spec, file).not.toBe('cordis');
        expect(spec!.startsWith('.'), `${file}: ${spec}`).toBe(true);
        const target = resolve(dirname(file), spec!.replace(/\.js$/, '.ts'));
        expect(target, file).not.toMatch(/\/src\/(host|cli)\//);
        walk(target);
      }
    };
    walk(join(import.meta.dirname, '../../src/engine/authorize.ts'));
    expect(seen.size).toBeGreaterThan(1);
  });
});

describe('authorize gives the gate’s reasons and rules, byte for byte', () => {
  const CONFIG = {
    modes: {
      review: {
        tools: {
          read: 'allow',
          'mcp__*': { decision: 'deny', reason: 'Review mode does not call MCP servers.' },
          write: 'ask',
          edit: { decision: 'ask', reason: 'Edits are reviewed one by one.' },
          exit_plan_mode: 'deny',
        },
        default: 'deny',
      },
      loose: { default: 'allow' },
    },
  } as const;

  async function gate(ctx: Context, agent: Agent, name: string): Promise<PreExecuteResult> {
    return ctx.tools.judge({ callId: 'c1', name, arguments: {}, agent });
  }

  it('for every mode and tool the gate answers deny or ask, an undefined mode included', async () => {
    const { ctx } = await setup({ config: CONFIG });
    const resolved = await resolveModeConfig(CONFIG);
    const set = resolved.value!;
    const names = ['read', 'write', 'edit', 'bash', 'mcp__gh__list', 'exit_plan_mode', 'no_such_tool'];
    let compared = 0;
    // `ghost`: a seeded mode the deployment does not define lands, and the gate fails closed.
    for (const mode of ['default', 'plan', 'review', 'loose', 'ghost']) {
      const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode });
      await agent.prompt('land');
      for (const name of names) {
        const fromGate = await gate(ctx, agent, name);
        const verdict = authorize(set, mode, { name });
        if (fromGate.kind === 'allow') {
          expect(verdict.decision, `${mode} ${name}`).toBe('allow');
          continue;
        }
        const userReason = verdict.userReason !== undefined ? { userReason: verdict.userReason } : {};
        expect(
          { kind: verdict.decision, reason: verdict.reason, ...userReason, rule: verdict.rule },
          `${mode} ${name}`,
        ).toEqual(fromGate);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(15);
  });
});

describe('authorize names the built-in plan by its place in the package', () => {
  it('in the reason of a deny and of an allow by a pattern, never by its installed path', async () => {
    const { BUILTIN_PLAN_PATH } = await import('../../src/compile/language/load.js');
    const { BUILTIN_PLAN_LABEL, shownFile } = await import('../../src/compile/builtin-plan.js');
    // The pure conversion of compile/builtin-plan.ts agrees with Node's.
    expect(shownFile(BUILTIN_PLAN_PATH)).toBe(BUILTIN_PLAN_LABEL);
    expect(shownFile('/elsewhere/plan.yaml')).toBe('/elsewhere/plan.yaml');
    const set = compilePolicies((await loadPolicySources([], { builtin: true })).documents);
    for (const command of ['ls', 'git log -5', 'rm -rf x']) {
      const verdict = authorize(set, 'plan', { name: 'bash', arguments: { command } });
      expect(verdict.reason, command).not.toContain(BUILTIN_PLAN_PATH);
    }
    const allowed = authorize(set, 'plan', { name: 'bash', arguments: { command: 'ls' } });
    expect(allowed.decision).toBe('allow');
    expect(allowed.reason).toMatch(/matches `ls \*\*` at dsh-mode:policies\/plan\.yaml:\d+:\d+$/);
  });
});
