/**
 * The grid's cells: each is the engine's `authorize` verdict for one mode and one row, so `matrix` and `diff`
 * show what the gate does (the exit asks where it is not denied; a mode a side does not define denies
 * everything, with the rule `(mode not defined)`). An argument probe is asked as the call it stands for, and its
 * cell names the deciding pattern.
 * @module
 */
import type { Cell, ToolRow } from '../compile/index.js';
import { authorize, type PolicyLookup, type ToolCall } from '../engine/authorize.js';
import type { ReportTool } from './grid-report.js';

/**
 * A mode's decision for one row.
 * @param policies the compiled modes of one side
 * @param mode the mode
 * @param row the tool
 * @returns the cell
 */
export function decideCell(policies: PolicyLookup, mode: string, row: ToolRow): Cell {
  const call: ToolCall = { name: row.name };
  if (row.hints) call.hints = row.hints;
  if (row.arguments) call.arguments = row.arguments;
  const verdict = authorize(policies, mode, call);
  const cell: Cell = {
    decision: verdict.decision,
    visible: verdict.decision !== 'deny',
    reason: verdict.ruleReason ?? null,
    rule: verdict.rule,
  };
  if (verdict.pattern) cell.pattern = verdict.pattern;
  return cell;
}

/**
 * A row as reports show it.
 * @returns the tool, with its hints when it is a hint probe
 */
export function reportTool(row: ToolRow): ReportTool {
  const { name, label, source } = row;
  const tool: ReportTool = row.probe
    ? { name, label, source, hints: { ...row.probe } }
    : { name, label, source };
  if (row.arguments) tool.arguments = { ...row.arguments };
  return tool;
}
