/**
 * The `sandbox` setting in `dsh-mode diff`: for each mode both sides define, whether the sandbox its program tools
 * run in changed. `read-only` → `none` is an escalation (what `bash` runs is no longer contained), `none` →
 * `read-only` a narrowing. A mode without the key runs unsandboxed, so it counts as `none`. Only a mode whose NEW
 * side shows a tool that runs programs is reported: the setting contains nothing elsewhere. Kept apart from the
 * decision rows: it is one setting per mode, not a decision per tool.
 * @module
 */
import type { CompiledPolicySet, RuleRef, SandboxKind, ToolCatalogEntry } from '../compile/index.js';
import { describeRule } from './formatters/cells.js';

/** One side of a sandbox change: the setting, and the key that sets it (null: no document sets one). */
export interface SandboxSide {
  kind: SandboxKind;
  rule: RuleRef | null;
}

/** A mode whose sandbox setting changed. */
export interface SandboxChange {
  mode: string;
  before: SandboxSide;
  after: SandboxSide;
  change: 'escalation' | 'narrowing';
}

/**
 * The modes whose sandbox changed from OLD to NEW, in the order of OLD's modes.
 * @param tools the tools compared (a catalog, or the built-in tools): those that run programs are asked about
 * @returns the changes, empty when none changed
 */
export function sandboxChanges(
  before: CompiledPolicySet,
  after: CompiledPolicySet,
  tools: readonly ToolCatalogEntry[],
): SandboxChange[] {
  const programs = tools.filter((tool) => tool.runsPrograms);
  const out: SandboxChange[] = [];
  for (const [mode, was] of before.modes) {
    const now = after.get(mode);
    if (now === undefined) continue;
    const side = (s: typeof was.sandbox): SandboxSide => ({ kind: s?.kind ?? 'none', rule: s?.rule ?? null });
    const [a, b] = [side(was.sandbox), side(now.sandbox)];
    if (a.kind === b.kind || !programs.some((t) => now.visible(t.name, t.hints))) continue;
    out.push({ mode, before: a, after: b, change: b.kind === 'none' ? 'escalation' : 'narrowing' });
  }
  return out;
}

/**
 * One line naming a sandbox change and the key that caused it.
 * @returns the line
 */
export function describeSandboxChange(change: SandboxChange): string {
  const by = (side: SandboxSide) => (side.rule ? describeRule(side.rule) : 'no `sandbox` key');
  return `mode \`${change.mode}\`, sandbox: ${change.before.kind} → ${change.after.kind} by ${by(change.after)} (was ${by(change.before)})`;
}
