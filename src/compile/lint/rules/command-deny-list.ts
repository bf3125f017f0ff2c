/**
 * `command-deny-list`: a rule whose base is `allow` and whose `commands:` deny some commands. A deny list of
 * commands is never complete: every program, option, alias and wrapper it does not name runs. `git push **` leaves
 * `git send-pack`, `git -c alias.p=push p`, a `git-push` script and `curl` to the forge's API. Deny patterns do
 * match past known global options (`git -C . push`) and through wrappers and package runners (`npx git push`), but
 * no pattern sees what a program does with its own configuration. The fix is an allowlist: base `deny`, with allow
 * patterns for what the mode may run (and deny patterns for their dangerous options).
 * @module
 */
import { defineRule } from './define.js';

export default defineRule({
  id: 'command-deny-list',
  meta: {
    description: 'a rule allows every command but those its deny patterns name',
    severity: 'warning',
    messages: {
      denyList: {
        text: 'rule `{{selector}}` allows every command except what its deny patterns name (`{{pattern}}`), and a deny list is never complete: `git send-pack` also pushes',
        help: 'write an allowlist instead: `{{selector}}: { decision: deny, commands: { "git status": allow, "git log **": allow } }` allows what it names and nothing else',
      },
    },
    docs: {
      failing: 'mode: team\ntools:\n  bash:\n    decision: allow\n    commands:\n      "git push **": deny\n',
      passing:
        'mode: team\ntools:\n  bash:\n    decision: deny\n    commands:\n      "git status": allow\n      "git log **": allow\n      "git log ** --output*": deny\n',
      fix: 'Make the base `deny` and allow the commands the mode may run, each with deny patterns for the options by which it writes or runs programs (as the built-in plan does). Keep a deny-list rule only for a mode that already lets the model run anything, and read its deny patterns as a speed bump, not a wall.',
    },
  },
  check(context, report) {
    for (const rule of context.argumentRules()) {
      if (rule.base !== 'allow') continue;
      for (const table of rule.tables) {
        if (table.kind !== 'commands') continue;
        const deny = table.patterns.find((p) => p.decision === 'deny' && p.error === undefined);
        if (deny === undefined) continue;
        report({
          messageId: 'denyList',
          data: { selector: rule.selector, pattern: deny.source },
          path: [...rule.path, 'decision'],
        });
      }
    }
  },
});
