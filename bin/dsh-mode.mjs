#!/usr/bin/env node
// The published entry point: the CLI bundled into one module by `npm run build` (scripts/build.mjs); `npm ci`
// builds it in a checkout, `npm pack` for a tarball. `dsh-mode hook AGENT`, which an agent runs before every tool
// call, is bin/dsh-mode-hook.cjs (what `dsh-mode install` registers), which loads none of the command line.
const [command, agent] = process.argv.slice(2);
if (command === 'hook' && agent !== undefined && !agent.startsWith('-')) {
  const { createRequire } = await import('node:module');
  createRequire(import.meta.url)('./dsh-mode-hook.cjs');
} else await import('../dist/bundle/cli.js');
