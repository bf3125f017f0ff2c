#!/usr/bin/env node
// The published entry point: the CLI lives in dist/ (built by `npm ci` in a checkout, by `npm pack` for a tarball).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
