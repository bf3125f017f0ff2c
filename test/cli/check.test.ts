/**
 * `dsh-mode check`, end to end: in process through `main()`, and one run of the built binary. Pins the decision
 * output, the deciding rule's location (the built-in plan's `default:` key), the `--format json` contract and the
 * exit codes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

const PLAN = join(ROOT, 'policies/plan.yaml');
const planLine = (prefix: string) =>
  readFileSync(PLAN, 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(prefix)) + 1;

describe('dsh-mode check', () => {
  it('says `plan write` is denied by the built-in `default` rule, with its location', async () => {
    const result = await runCli(['check', 'plan', 'write'], { cwd: ROOT });
    expect(result.code).toBe(0);
    const line = planLine('default:');
    expect(line).toBeGreaterThan(0);
    expect(result.stdout).toContain('mode `plan`, tool `write`: deny');
    expect(result.stdout).toContain('visible  no');
    // The built-in plan by its place in the package, never an install path.
    expect(result.stdout).toContain(`rule     default at dsh-mode:policies/plan.yaml:${line}:1`);
    expect(result.stdout).not.toContain(ROOT);
    expect(result.stdout).not.toContain('hint');
  });

  it('answers for the built-in plan in a fresh project whose policies/ is empty, as when it is missing', async () => {
    const empty = makeTree({ 'policies/.keep': '' });
    const missing = makeTree({ 'README.md': 'x\n' });
    const answer = await runCli(['check', 'plan', 'write', '--format', 'json'], { cwd: empty });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer).toEqual(await runCli(['check', 'plan', 'write', '--format', 'json'], { cwd: missing }));
    expect(JSON.parse(answer.stdout).decision).toBe('deny');
    // Named on the command line, the empty folder is an input that yields nothing: an error.
    const named = await runCli(['check', 'plan', 'write', 'policies'], { cwd: empty });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('no policy files in `policies`');
  });

  it("gives a misspelt tool a did-you-mean from the built-in tools; the decision stays the policy's", async () => {
    const result = await runCli(['check', 'plan', 'wrte'], { cwd: ROOT });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('mode `plan`, tool `wrte`: deny');
    expect(result.stdout).toContain('  hint     no rule names `wrte`; did you mean `write`?\n');
    // A name nothing is near gets no hint, and neither does a tool a rule names.
    expect((await runCli(['check', 'plan', 'zzzzzz'], { cwd: ROOT })).stdout).not.toContain('hint');
    const dir = makeTree({ 'policies/r.yaml': 'mode: review\ntools:\n  deploy_prod: ask\ndefault: deny\n' });
    const named = await runCli(['check', 'review', 'deploy_prod', '--format', 'json'], { cwd: dir });
    expect(json(named).hint).toBeUndefined();
    const near = json(await runCli(['check', 'review', 'deploy_prd', '--format', 'json'], { cwd: dir }));
    expect(near.hint).toBe('no rule names `deploy_prd`; did you mean `deploy_prod`?');
  });

  it('takes the names of --tools CATALOG for the did-you-mean, and says which glob decided', async () => {
    const dir = makeTree({
      'tools.json': JSON.stringify([{ name: 'mcp__gh__list_issues' }]),
      'policies/r.yaml': 'mode: review\ntools:\n  "mcp__*": ask\ndefault: deny\n',
    });
    const without = json(
      await runCli(['check', 'review', 'mcp__gh__list_issue', '--format', 'json'], { cwd: dir }),
    );
    expect(without.hint).toBeUndefined();
    const out = await runCli(['check', 'review', 'mcp__gh__list_issue', '--tools', 'tools.json'], {
      cwd: dir,
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      'hint     no rule names `mcp__gh__list_issue` (`mcp__*` decided); did you mean `mcp__gh__list_issues`?',
    );
    const missing = await runCli(['check', 'review', 'x', '--tools', 'nope.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read catalog `nope.json`');
  });

  it('prints the JSON contract exactly (the built binary)', () => {
    const out = json(dshMode(['check', 'plan', 'write', '--format', 'json'], ROOT));
    expect(Object.keys(out)).toEqual(['mode', 'tool', 'decision', 'visible', 'reason', 'rule']);
    expect(out).toEqual({
      mode: 'plan',
      tool: 'write',
      decision: 'deny',
      visible: false,
      reason: null,
      rule: {
        selector: 'default',
        file: 'dsh-mode:policies/plan.yaml',
        line: planLine('default:'),
        column: 1,
      },
    });
  });

  it('reports the rule reason and the selector that decided', async () => {
    const out = json(await runCli(['check', 'plan', 'exit_plan_mode', '--format', 'json'], { cwd: ROOT }));
    expect(out).toMatchObject({
      decision: 'ask',
      visible: true,
      reason: expect.stringContaining('approval'),
      rule: {
        selector: 'exit_plan_mode',
        file: 'dsh-mode:policies/plan.yaml',
        line: planLine('  exit_plan_mode:'),
        column: 3,
      },
    });
  });

  it('applies --annotations: a read-only MCP tool is allowed by `effects.readOnly`', async () => {
    const out = json(
      await runCli(['check', 'plan', 'mcp__gh__list', '--annotations', 'readOnly', '--format', 'json'], {
        cwd: ROOT,
      }),
    );
    expect(out).toMatchObject({
      decision: 'allow',
      rule: { selector: 'effects.readOnly', line: planLine('  readOnly:') },
    });
    const off = json(
      await runCli(
        ['check', 'plan', 'mcp__gh__list', '--annotations', 'readOnly=false', '--format', 'json'],
        { cwd: ROOT },
      ),
    );
    expect(off).toMatchObject({ decision: 'deny', rule: { selector: 'default' } });
  });

  it('reports null positions when no document decides', async () => {
    const dir = makeTree({ 'p.yaml': 'mode: review\ntools:\n  read: allow\n' });
    const out = json(
      await runCli(['check', 'review', 'write', 'p.yaml', '--no-builtin', '--format', 'json'], { cwd: dir }),
    );
    expect(out).toEqual({
      mode: 'review',
      tool: 'write',
      decision: 'deny',
      visible: false,
      reason: null,
      rule: { selector: 'default', file: null, line: null, column: null },
    });
  });

  it('reads PATHs in order, composing as a ceiling over the built-in plan', async () => {
    const dir = makeTree({
      'offline.yaml': 'mode: plan\ntools:\n  "web_*": { decision: deny, reason: Offline. }\n',
    });
    const out = json(
      await runCli(['check', 'plan', 'web_fetch', 'offline.yaml', '--format', 'json'], { cwd: dir }),
    );
    expect(out).toMatchObject({
      decision: 'deny',
      reason: 'Offline.',
      rule: { selector: 'web_*', file: 'offline.yaml', line: 3, column: 3 },
    });
  });

  it('answers as the gate does: exit_plan_mode asks in a mode that allows everything', async () => {
    const dir = makeTree({ 'loose.yaml': 'mode: loose\ndefault: allow\n' });
    const out = json(
      await runCli(['check', 'loose', 'exit_plan_mode', 'loose.yaml', '--format', 'json'], { cwd: dir }),
    );
    expect(out).toMatchObject({
      decision: 'ask',
      visible: true,
      rule: { selector: 'default', file: 'loose.yaml' },
    });
    expect(
      json(await runCli(['check', 'loose', 'write', 'loose.yaml', '--format', 'json'], { cwd: dir }))
        .decision,
    ).toBe('allow');
  });

  it('exits 1 for an unknown mode, listing the modes that exist', async () => {
    const dir = makeTree({ 'policies/review.yaml': 'mode: review\ndefault: deny\n' });
    const result = await runCli(['check', 'reveiw', 'read'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: unknown mode `reveiw`: the modes are `plan`, `review`');
    expect(result.stderr).toContain('did you mean `review`?');
  });

  it('exits 1 when a policy file cannot load', async () => {
    const dir = makeTree({ 'bad.yaml': 'mode: plan\ntools: [\n' });
    const result = await runCli(['check', 'plan', 'read', 'bad.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad.yaml');
    expect(result.stderr).toContain('no decision is made');
  });

  it('exits 2 on usage errors', async () => {
    expect((await runCli(['check'], { cwd: ROOT })).code).toBe(2);
    const missing = await runCli(['check', 'plan'], { cwd: ROOT });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: missing TOOL');
    const hint = await runCli(['check', 'plan', 'x', '--annotations', 'readonly'], { cwd: ROOT });
    expect(hint.code).toBe(2);
    expect(hint.stderr).toContain('did you mean `readOnly`?');
    expect((await runCli(['check', 'plan', 'x', '--format', 'yaml'], { cwd: ROOT })).code).toBe(2);
  });
});

describe('check: what the answer says', () => {
  const REVIEW =
    'mode: review\ntools:\n  bash:\n    decision: deny\n    reason: no shell here\n    commands:\n      "ls **": allow\n' +
    '      "cat **": { decision: ask, reason: reading files needs a look }\n' +
    '  read:\n    decision: allow\n    paths:\n      "src/**": allow\ndefault: deny\n';

  it('names the built-in plan as dsh-mode:policies/plan.yaml in the message too, never by its path', async () => {
    const dir = makeTree({ 'README.md': 'x\n' });
    for (const args of ['{"command":"git push"}', '{"command":"ls"}']) {
      const run = await runCli(['check', 'plan', 'bash', '--args', args, '--format', 'json'], { cwd: dir });
      const report = JSON.parse(run.stdout);
      expect(run.stdout).not.toContain(ROOT);
      expect(JSON.stringify([report.rule, report.message])).toContain('dsh-mode:policies/plan.yaml');
    }
    const allowed = JSON.parse(
      (
        await runCli(['check', 'plan', 'bash', '--args', '{"command":"ls"}', '--format', 'json'], {
          cwd: dir,
        })
      ).stdout,
    );
    expect(allowed.message).toMatch(
      /^tool "bash" is allowed in plan mode: "ls" matches `ls \*\*` at dsh-mode:policies\/plan\.yaml:\d+:\d+$/,
    );
  });

  it("an allowed call never shows the base rule's deny reason; a pattern's own reason, and a denied call's, stay", async () => {
    const dir = makeTree({ 'policies/r.yaml': REVIEW });
    const decide = async (command: string) =>
      JSON.parse(
        (
          await runCli(
            ['check', 'review', 'bash', '--args', JSON.stringify({ command }), '--format', 'json'],
            { cwd: dir },
          )
        ).stdout,
      );
    const ls = await decide('ls');
    expect([ls.decision, ls.reason]).toEqual(['allow', null]);
    expect(ls.message).toBe(
      'tool "bash" is allowed in review mode: "ls" matches `ls **` at policies/r.yaml:7:7',
    );
    const cat = await decide('cat x');
    expect([cat.decision, cat.reason]).toEqual(['ask', 'reading files needs a look']);
    const rm = await decide('rm x');
    expect([rm.decision, rm.reason]).toEqual(['deny', 'no shell here']);
    expect(rm.message).toContain('no shell here');
  });

  it('without --args, says why a `decision: allow` rule with `paths:` asks', async () => {
    const dir = makeTree({ 'policies/r.yaml': REVIEW });
    const run = await runCli(['check', 'review', 'read'], { cwd: dir });
    expect(run.stdout).toContain('mode `review`, tool `read`: ask\n');
    expect(run.stdout).toContain(
      '  hint     `read` decides by the call\'s `path`, and without --args there is none: a call its patterns cannot judge is never allowed, so it asks; decide one call with --args \'{"path":"src/index.ts"}\'\n',
    );
    // With the arguments it names, the call is decided and the hint is gone.
    const decided = await runCli(['check', 'review', 'read', '--args', '{"path":"src/index.ts"}'], {
      cwd: dir,
    });
    expect(decided.stdout).toContain('mode `review`, tool `read`: allow\n');
    expect(decided.stdout).not.toContain('hint');
  });
});
