/**
 * `dsh-mode check`, end to end: the built binary as a child process. Pins the decision output, the deciding
 * rule's location (the built-in plan's `default:` key), the `--format json` contract and the exit codes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dshMode, json, makeTree, ROOT } from './run.js';

const PLAN = join(ROOT, 'policies/plan.yaml');
const planLine = (prefix: string) =>
  readFileSync(PLAN, 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(prefix)) + 1;

describe('dsh-mode check', () => {
  it('says `plan write` is denied by the built-in `default` rule, with its location', () => {
    const result = dshMode(['check', 'plan', 'write'], ROOT);
    expect(result.code).toBe(0);
    const line = planLine('default:');
    expect(line).toBeGreaterThan(0);
    expect(result.stdout).toContain('mode `plan`, tool `write`: deny');
    expect(result.stdout).toContain('visible  no');
    expect(result.stdout).toContain(`rule     default at ${PLAN}:${line}:1`);
  });

  it('prints the JSON contract exactly', () => {
    const out = json(dshMode(['check', 'plan', 'write', '--format', 'json'], ROOT));
    expect(Object.keys(out)).toEqual(['mode', 'tool', 'decision', 'visible', 'reason', 'rule']);
    expect(out).toEqual({
      mode: 'plan',
      tool: 'write',
      decision: 'deny',
      visible: false,
      reason: null,
      rule: { selector: 'default', file: PLAN, line: planLine('default:'), column: 1 },
    });
  });

  it('reports the rule reason and the selector that decided', () => {
    const out = json(dshMode(['check', 'plan', 'exit_plan_mode', '--format', 'json'], ROOT));
    expect(out).toMatchObject({
      decision: 'ask',
      visible: true,
      reason: expect.stringContaining('approval'),
      rule: { selector: 'exit_plan_mode', file: PLAN, line: planLine('  exit_plan_mode:'), column: 3 },
    });
  });

  it('applies --annotations: a read-only MCP tool is allowed by `effects.readOnly`', () => {
    const out = json(
      dshMode(['check', 'plan', 'mcp__gh__list', '--annotations', 'readOnly', '--format', 'json'], ROOT),
    );
    expect(out).toMatchObject({
      decision: 'allow',
      rule: { selector: 'effects.readOnly', line: planLine('  readOnly:') },
    });
    const off = json(
      dshMode(
        ['check', 'plan', 'mcp__gh__list', '--annotations', 'readOnly=false', '--format', 'json'],
        ROOT,
      ),
    );
    expect(off).toMatchObject({ decision: 'deny', rule: { selector: 'default' } });
  });

  it('reports null positions when no document decides', () => {
    const dir = makeTree({ 'p.yaml': 'mode: review\ntools:\n  read: allow\n' });
    const out = json(
      dshMode(['check', 'review', 'write', 'p.yaml', '--no-builtin', '--format', 'json'], dir),
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

  it('reads PATHs in order, composing as a ceiling over the built-in plan', () => {
    const dir = makeTree({
      'offline.yaml': 'mode: plan\ntools:\n  "web_*": { decision: deny, reason: Offline. }\n',
    });
    const out = json(dshMode(['check', 'plan', 'web_fetch', 'offline.yaml', '--format', 'json'], dir));
    expect(out).toMatchObject({
      decision: 'deny',
      reason: 'Offline.',
      rule: { selector: 'web_*', file: 'offline.yaml', line: 3, column: 3 },
    });
  });

  it('answers as the gate does: exit_plan_mode asks in a mode that allows everything', () => {
    const dir = makeTree({ 'loose.yaml': 'mode: loose\ndefault: allow\n' });
    const out = json(dshMode(['check', 'loose', 'exit_plan_mode', 'loose.yaml', '--format', 'json'], dir));
    expect(out).toMatchObject({
      decision: 'ask',
      visible: true,
      rule: { selector: 'default', file: 'loose.yaml' },
    });
    expect(json(dshMode(['check', 'loose', 'write', 'loose.yaml', '--format', 'json'], dir)).decision).toBe(
      'allow',
    );
  });

  it('exits 1 for an unknown mode, listing the modes that exist', () => {
    const dir = makeTree({ 'policies/review.yaml': 'mode: review\ndefault: deny\n' });
    const result = dshMode(['check', 'reveiw', 'read'], dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: unknown mode `reveiw`: the modes are `plan`, `review`');
    expect(result.stderr).toContain('did you mean `review`?');
  });

  it('exits 1 when a policy file cannot load', () => {
    const dir = makeTree({ 'bad.yaml': 'mode: plan\ntools: [\n' });
    const result = dshMode(['check', 'plan', 'read', 'bad.yaml'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bad.yaml');
    expect(result.stderr).toContain('no decision is made');
  });

  it('exits 2 on usage errors', () => {
    expect(dshMode(['check'], ROOT).code).toBe(2);
    const missing = dshMode(['check', 'plan'], ROOT);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: missing TOOL');
    const hint = dshMode(['check', 'plan', 'x', '--annotations', 'readonly'], ROOT);
    expect(hint.code).toBe(2);
    expect(hint.stderr).toContain('did you mean `readOnly`?');
    expect(dshMode(['check', 'plan', 'x', '--format', 'yaml'], ROOT).code).toBe(2);
  });
});
