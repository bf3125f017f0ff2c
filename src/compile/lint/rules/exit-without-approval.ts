/**
 * `exit-without-approval`: a document that allows `exit_plan_mode` outright (by name, glob, effect or default).
 * The exit is the approval moment, so the engine asks for it whatever the policy says (a human always sees the
 * plan); an `allow` there reads as a promise the engine will not keep, and usually means a widening glob or default
 * caught the exit by accident.
 * @module
 */
import { defineRule } from './define.js';

const EXIT_TOOL = 'exit_plan_mode';

export default defineRule({
  id: 'exit-without-approval',
  meta: {
    description: '`exit_plan_mode` is allowed without asking',
    severity: 'warning',
    messages: {
      allowed: {
        text: '`exit_plan_mode` is allowed by `{{selector}}` in mode `{{mode}}`: the engine asks for approval anyway',
        help: 'add `exit_plan_mode: ask` so a human approves the plan, or `exit_plan_mode: deny` to offer no exit',
      },
    },
    docs: {
      failing: 'mode: plan\ntools:\n  exit_plan_mode: allow\n',
      passing: 'mode: plan\ntools:\n  exit_plan_mode: ask\n',
      fix: 'Decide `exit_plan_mode` with `ask` (approval) or `deny` (no exit), never `allow`.',
    },
  },
  check(context, report) {
    const result = context.compose('alone').decide(EXIT_TOOL);
    if (result.decision !== 'allow') return;
    const path = context.pathOf(result.rule);
    if (path === undefined) return;
    report({
      messageId: 'allowed',
      data: { selector: result.rule.selector, mode: context.source.document.mode },
      path,
    });
  },
});
