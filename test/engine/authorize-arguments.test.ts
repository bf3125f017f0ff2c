/**
 * `authorize()` with argument rules: the name picks the rule, the rule's `commands` and `paths` patterns decide
 * the call, and the verdict names the command or path that decided (`subject`), the pattern with its
 * file:line:column, and for a script each simple command. Policies are real documents composed with the built-in
 * plan; paths resolve lexically unless a resolver is given.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicies, type CompiledPolicySet } from '../../src/compile/decide/compile.js';
import { fsPathResolver } from '../../src/compile/decide/fs-path-resolver.js';
import { loadPolicySources, loadPolicyText } from '../../src/compile/language/load.js';
import { authorize } from '../../src/engine/authorize.js';

const GUARDED = [
  'mode: guarded',
  'tools:',
  '  bash:',
  '    decision: deny',
  '    commands:',
  '      "git log **": allow',
  '      "git push **": { decision: deny, reason: pushing is for people }',
  '      "npm test **": ask',
  '  read:',
  '    decision: allow',
  '    paths:',
  '      ".env*": deny',
  '  exit_plan_mode: ask',
  'default: deny',
].join('\n');

function compiled(...texts: string[]): CompiledPolicySet {
  return compilePolicies(texts.flatMap((t, i) => loadPolicyText(t, `doc${i}.yaml`).documents));
}

const bash = (command: string) => ({ name: 'bash', arguments: { command } });

describe('authorize: argument rules', () => {
  const set = compiled(GUARDED);

  it('quotes the offending sub-command and names the pattern and its file:line in the deny reason', () => {
    const v = authorize(set, 'guarded', bash('git log -3 && git push origin main'));
    expect(v.decision).toBe('deny');
    expect(v.subject).toBe('git push origin main');
    expect(v.pattern).toEqual({ selector: 'git push **', file: 'doc0.yaml', line: 7, column: 7 });
    expect(v.rule).toEqual({ selector: 'bash', file: 'doc0.yaml', line: 3, column: 3 });
    expect(v.ruleReason).toBe('pushing is for people');
    expect(v.reason).toBe(
      'tool "bash" is not available in guarded mode: "git push origin main" is denied by `git push **` at doc0.yaml:7:7: pushing is for people',
    );
    expect(v.commands?.map((c) => [c.text, c.decision])).toEqual([
      ['git log -3', 'allow'],
      ['git push origin main', 'deny'],
    ]);
  });

  it('points at the exit when no pattern matched and the mode has one', () => {
    const v = authorize(set, 'guarded', bash('rm -rf build'));
    expect(v.reason).toBe(
      'tool "bash" is not available in guarded mode: "rm -rf build" matches no pattern of `bash`; keep planning and present your plan with exit_plan_mode when ready',
    );
    expect(v.pattern).toBeUndefined();
  });

  it('quotes the command when a rule without a decision of its own leaves it to the mode default', () => {
    // `bash` has patterns but no `decision:`: a command none of them matches is left to the rest of the document.
    const team = compiled(
      'mode: team\ntools:\n  bash:\n    commands:\n      "git status": allow\n      "cd **": allow\ndefault: deny\n',
    );
    const missed = authorize(team, 'team', bash('git status && rm -rf build'));
    expect(missed).toMatchObject({
      decision: 'deny',
      subject: 'rm -rf build',
      rule: { selector: 'default', file: 'doc0.yaml', line: 7, column: 1 },
    });
    expect(missed.reason).toBe(
      'tool "bash" is not available in team mode: "rm -rf build" matches no pattern of `bash`',
    );
    // Unanalysable (git after a folder move): the reason says why, not only that the default denies.
    const moved = authorize(team, 'team', bash('cd sub && git status'));
    expect(moved).toMatchObject({ decision: 'deny', subject: 'git status' });
    expect(moved.reason).toContain('"git status" cannot be analysed: `git` may run in another folder');
    // A decided command keeps its own pattern as the subject: nothing is named twice.
    expect(authorize(team, 'team', bash('git status'))).toMatchObject({
      decision: 'allow',
      subject: 'git status',
    });
  });

  it('shows the command in the approval question of an ask', () => {
    const v = authorize(set, 'guarded', bash('npm test -- --watch=false'));
    expect(v.decision).toBe('ask');
    expect(v.subject).toBe('npm test -- --watch=false');
    expect(v.reason).toBe(
      'tool "bash" needs approval in guarded mode: "npm test -- --watch=false" matches `npm test **` at doc0.yaml:8:7',
    );
  });

  it('allows a fully analysed script whose every command is allowed', () => {
    const v = authorize(set, 'guarded', bash('git log --oneline | git log -1'));
    expect(v.decision).toBe('allow');
    expect(v.message).toContain('allow "bash" in guarded mode by `bash` at doc0.yaml:3:3');
  });

  it('fails closed on an unanalysable script and says why', () => {
    const v = authorize(set, 'guarded', bash('git log > log.txt'));
    expect(v.decision).toBe('deny');
    expect(v.reason).toContain('cannot be analysed');
    const open = compiled('mode: open\ntools:\n  bash: { decision: allow, commands: { "rm **": deny } }\n');
    expect(authorize(open, 'open', bash('git log > log.txt')).decision).toBe('ask');
    expect(authorize(open, 'open', { name: 'bash', arguments: {} })).toMatchObject({
      decision: 'ask',
      subject: '(argument `command`)',
    });
  });

  it('resolves paths with the resolver it is given, lexically (no absolute path allowed) without one', () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-authorize-')));
    writeFileSync(join(ws, 'a.txt'), 'a');
    const abs = { name: 'read', arguments: { path: join(ws, 'a.txt') } };
    const open = compiled('mode: open\ntools:\n  read: { decision: deny, paths: { "**": allow } }\n');
    expect(authorize(open, 'open', abs).decision).toBe('deny');
    expect(authorize(open, 'open', abs, { resolvePath: fsPathResolver(ws) }).decision).toBe('allow');
    expect(authorize(open, 'open', { name: 'read', arguments: { path: 'a.txt' } }).decision).toBe('allow');
  });
});

describe('authorize: the built-in plan under an operator document with argument rules', () => {
  it('narrows plan: read of .env denied, every other read as before, bash still denied', async () => {
    const load = await loadPolicySources([], { builtin: true });
    const operator = loadPolicyText('mode: plan\ntools:\n  read: { paths: { ".env*": deny } }\n', 'op.yaml');
    const set = compilePolicies([...load.documents, ...operator.documents]);
    const plain = compilePolicies(load.documents);
    expect(authorize(set, 'plan', { name: 'read', arguments: { path: '.env' } })).toMatchObject({
      decision: 'deny',
      subject: '.env',
      pattern: { selector: '.env*', file: 'op.yaml' },
    });
    for (const name of ['read', 'write', 'bash', 'exit_plan_mode', 'list', 'mcp__x__y']) {
      const args = name === 'bash' ? { command: 'git log' } : { path: 'README.md' };
      const before = authorize(plain, 'plan', { name, arguments: args });
      const after = authorize(set, 'plan', { name, arguments: args });
      expect(after.decision, name).toBe(before.decision);
      expect(after.reason, name).toBe(before.reason);
    }
  });

  it('keeps name-only policies on the memoised lookup: the same result object, no subject', () => {
    const set = compiled('mode: plain\ntools:\n  read: allow\ndefault: deny\n');
    const policy = set.get('plain')!;
    expect(policy.decideCall!({ name: 'read', arguments: { path: '.env' } })).toBe(policy.decide('read'));
    expect(authorize(set, 'plain', { name: 'read', arguments: { path: '.env' } }).subject).toBeUndefined();
  });
});
