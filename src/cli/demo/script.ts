/**
 * The embedded demo (`npm start`): a tiny project seeded into `.dsh/demo/`, the prompt that starts its first turn,
 * and the scripted model's answers. The walk-through: explore read-only, try a write (denied in plan mode), propose
 * a plan with `exit_plan_mode` (the approval is asked in the terminal), then edit once the plan is approved.
 * Shipped as code so the package needs no extra data files.
 * @module
 */
import type { ScriptEntry } from '../../host/models/index.js';

/** The files of the demo project, by path relative to `.dsh/demo/`. */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  'README.md': '# greet\n\nA one-function library: `greet(name)` returns a greeting.\n',
  'src/greet.js': "export function greet(name) {\n  return 'Hello, ' + name;\n}\n",
};

/** The first user message, sent by the demo itself. */
export const DEMO_PROMPT = 'Add a `shout` option to greet() that returns the greeting in capitals.';

const NEW_GREET =
  "export function greet(name, { shout = false } = {}) {\n  const text = 'Hello, ' + name;\n  return shout ? text.toUpperCase() : text;\n}\n";

/** The demo model's answers, one per model request. */
export const DEMO_SCRIPT: readonly ScriptEntry[] = [
  {
    text: "I'm in plan mode, so I'll look around before changing anything.",
    tool_calls: [
      { name: 'list', arguments: { path: '.' } },
      { name: 'read', arguments: { path: 'src/greet.js' } },
    ],
  },
  {
    text: 'The change is small; let me just write it.',
    tool_calls: [{ name: 'write', arguments: { path: 'src/greet.js', content: NEW_GREET } }],
  },
  {
    text: 'Writes are blocked until a plan is approved, so here is my plan.',
    tool_calls: [
      {
        name: 'exit_plan_mode',
        arguments: {
          plan:
            '# Add a `shout` option to greet()\n\n' +
            '1. Give `greet(name)` a second parameter `{ shout = false } = {}`.\n' +
            '2. Return the greeting upper-cased when `shout` is true.\n' +
            '3. Keep `greet(name)` unchanged for existing callers.\n',
        },
      },
    ],
  },
  {
    text: 'Applying the plan.',
    tool_calls: [
      {
        name: 'edit',
        arguments: {
          path: 'src/greet.js',
          old_string: "export function greet(name) {\n  return 'Hello, ' + name;\n}\n",
          new_string: NEW_GREET,
        },
      },
    ],
  },
  { text: "Done: `greet('Ada', { shout: true })` returns `HELLO, ADA`; `greet('Ada')` is unchanged." },
];
