import rule from '../../../../src/compile/lint/rules/no-op-sandbox.js';
import { testRule } from './rule-tester.js';

testRule(rule, {
  valid: [
    { name: 'bash allowed', policy: 'mode: m\nsandbox: read-only\ntools:\n  bash: allow\n' },
    { name: 'bash asked by the default', policy: 'mode: m\nsandbox: read-only\ndefault: ask\n' },
    {
      name: 'bash with commands',
      policy:
        'mode: m\nsandbox: none\ntools:\n  bash:\n    decision: deny\n    commands:\n      "ls **": allow\n',
    },
    { name: 'no sandbox key', policy: 'mode: m\ntools:\n  read: allow\n' },
    { name: 'the built-in plan', policy: 'mode: plan\n', builtin: true },
    {
      name: 'read-only under the built-in plan',
      policy: 'mode: plan\nsandbox: read-only\n',
      builtin: true,
    },
    {
      name: 'none that an override lets stand',
      policy: 'mode: plan\noverride: true\nsandbox: none\ntools:\n  bash: allow\n',
      builtin: true,
    },
    {
      name: 'the built-in plan under an operator that denies bash',
      policy: 'mode: plan\ntools:\n  bash: deny\n',
      builtin: true,
    },
    {
      name: 'bash in the catalog',
      policy: 'mode: m\nsandbox: read-only\ndefault: allow\n',
      catalog: [{ name: 'bash', runsPrograms: true }],
    },
  ],
  invalid: [
    {
      name: 'no program tool visible',
      policy: 'mode: review\nsandbox: read-only\ntools:\n  read: allow\ndefault: deny\n',
      errors: [
        {
          messageId: 'noProgramTool',
          line: 2,
          column: 1,
          message: '`sandbox: read-only` has no effect: mode `review` shows no tool that runs programs',
        },
      ],
    },
    {
      name: 'bash denied by name',
      policy: 'mode: m\nsandbox: none\ntools:\n  bash: deny\ndefault: allow\n',
      errors: [{ messageId: 'noProgramTool', line: 2, column: 1 }],
    },
    {
      name: 'bash denied by a later document of the mode',
      policy: ['mode: m\nsandbox: read-only\ndefault: allow\n', 'mode: m\ntools:\n  bash: deny\n'],
      errors: [{ messageId: 'noProgramTool', line: 2, column: 1 }],
    },
    {
      name: 'a catalog without bash (an MCP shell is not a program tool)',
      policy: 'mode: m\nsandbox: read-only\ndefault: allow\n',
      catalog: [{ name: 'read' }, { name: 'mcp__sh__bash', server: 'sh' }],
      errors: [{ messageId: 'noProgramTool', line: 2, column: 1 }],
    },
    {
      name: 'none under the built-in plan',
      policy: 'mode: plan\nsandbox: none\n',
      builtin: true,
      errors: [
        {
          messageId: 'underCeiling',
          line: 2,
          column: 1,
          message:
            '`sandbox: none` has no effect: mode `plan` requires a read-only sandbox by `sandbox` at plan.yaml:9:1',
        },
      ],
    },
    {
      name: 'none beside a later read-only',
      policy: ['mode: m\nsandbox: none\ndefault: allow\n', 'mode: m\nsandbox: read-only\n'],
      errors: [{ messageId: 'underCeiling', line: 2, column: 1 }],
    },
  ],
});
