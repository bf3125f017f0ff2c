/**
 * `authorize()` and the sandbox: an allowed or asked call of a tool that runs programs, in a mode whose composed
 * `sandbox` is `read-only`, carries the requirement with the key that set it; a deny, another tool, a mode with
 * `sandbox: none` or none at all, and the default mode never do. Real documents through the real compiler.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/decide/compile.js';
import { loadPolicySources, loadPolicyText } from '../../src/compile/language/load.js';
import { authorize } from '../../src/engine/authorize.js';

async function policies() {
  const builtin = await loadPolicySources([], { builtin: true });
  const inline = [
    'mode: boxed\nsandbox: read-only\ntools:\n  bash: { decision: allow, commands: { "rm **": deny, "git push **": ask } }\n  read: allow\n',
    'mode: bare\nsandbox: none\ndefault: allow\n',
    'mode: unset\ndefault: allow\n',
  ].flatMap((text, i) => loadPolicyText(text, `m${i}.yaml`).documents);
  return compilePolicies([...builtin.documents, ...inline]);
}

describe('authorize: the sandbox a call runs in', () => {
  it('requires the read-only sandbox for an allowed bash call in plan, naming plan.yaml', async () => {
    const set = await policies();
    const v = authorize(set, 'plan', { name: 'bash', arguments: { command: 'git log -5' } });
    expect(v.decision).toBe('allow');
    expect(v.sandbox?.kind).toBe('read-only');
    expect(v.sandbox?.rule).toMatchObject({ selector: 'sandbox' });
    expect(v.sandbox?.rule.file).toMatch(/plan\.yaml$/);
    expect(v.sandbox?.rule.line).toBeGreaterThan(0);
  });

  it('requires it for allow and ask, never for a deny', async () => {
    const set = await policies();
    const call = (command: string) => authorize(set, 'boxed', { name: 'bash', arguments: { command } });
    expect(call('ls')).toMatchObject({ decision: 'allow', sandbox: { kind: 'read-only' } });
    expect(call('git push origin')).toMatchObject({ decision: 'ask', sandbox: { kind: 'read-only' } });
    const denied = call('rm -rf x');
    expect(denied.decision).toBe('deny');
    expect(denied.sandbox).toBeUndefined();
    expect(authorize(set, 'plan', { name: 'bash', arguments: { command: 'rm x' } }).sandbox).toBeUndefined();
  });

  it('requires nothing of a tool that does not run programs', async () => {
    const set = await policies();
    const read = authorize(set, 'boxed', { name: 'read', arguments: { path: 'a' } });
    expect(read.decision).toBe('allow');
    expect(read.sandbox).toBeUndefined();
    const mcp = authorize(set, 'plan', { name: 'mcp__sh__bash', hints: { readOnly: true } });
    expect(mcp.decision).toBe('allow');
    expect(mcp.sandbox).toBeUndefined();
  });

  it('requires nothing in a mode with `sandbox: none`, without the key, or in the default mode', async () => {
    const set = await policies();
    for (const mode of ['bare', 'unset', 'default']) {
      const v = authorize(set, mode, { name: 'bash', arguments: { command: 'sort -S 1K /dev/urandom' } });
      expect(v.decision, mode).toBe('allow');
      expect(v, mode).not.toHaveProperty('sandbox');
    }
  });

  it('requires nothing in a mode the policies do not define (every call is denied there)', async () => {
    const set = await policies();
    const v = authorize(set, 'nope', { name: 'bash', arguments: { command: 'ls' } });
    expect(v.decision).toBe('deny');
    expect(v.sandbox).toBeUndefined();
  });
});
