#!/usr/bin/env node
// The published entry point: the CLI bundled into one module by `npm run build` (scripts/build.mjs); `npm ci`
// builds it in a checkout, `npm pack` for a tarball.
import '../dist/bundle/cli.js';
