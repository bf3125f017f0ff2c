#!/usr/bin/env node
// The published entry point: the CLI bundled into one module by `npm run build` (scripts/build.mjs); `npm ci`
// builds it in a checkout, `npm pack` for a tarball. `dsh-mode hook AGENT`, which an agent runs before every tool
// call, loads its own small bundle instead (src/agents/hook-entry.ts).
const [command, agent] = process.argv.slice(2);
if (command === 'hook' && agent !== undefined && !agent.startsWith('-'))
  await import('../dist/bundle/agents/hook.js');
else await import('../dist/bundle/cli.js');
