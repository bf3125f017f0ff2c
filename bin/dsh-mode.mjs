#!/usr/bin/env node
// The published entry point: the CLI bundled into one module by `npm run build` (scripts/build.mjs); `npm ci`
// builds it in a checkout, `npm pack` for a tarball. `dsh-mode hook AGENT`, which an agent runs before every tool
// call, loads its own small script instead (bin/hook.mjs); if that bundle cannot load, the call is
// still denied, in the agent's form, with the reason on stderr and exit 2 (a hook that just crashed would let the
// call run in Codex and Gemini CLI).
const [command, agent] = process.argv.slice(2);
if (command === 'hook' && agent !== undefined && !agent.startsWith('-')) {
  try {
    await import('./hook.mjs');
  } catch (error) {
    const reason = `dsh-mode could not decide this call, so it is denied: its hook did not load (${error?.message ?? error})`;
    if (agent === 'gemini') process.stdout.write(`${JSON.stringify({ decision: 'deny', reason })}\n`);
    else if (agent === 'claude-code' || agent === 'codex') {
      const hookSpecificOutput = {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: reason,
      };
      process.stdout.write(`${JSON.stringify({ hookSpecificOutput })}\n`);
    }
    process.stderr.write(`${reason}\n`);
    process.exitCode = agent === 'claude-code' ? 0 : 2;
  }
} else await import('../dist/bundle/cli.js');
