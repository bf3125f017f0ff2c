/**
 * The entry of `dist/bundle/hook.js`: `bin/dsh-mode.mjs hook AGENT` runs this module alone, so a hook process loads
 * the decision and nothing of the command line (scripts/build.mjs bundles it).
 * @module
 */
import { hookEntry } from './hook-main.js';

await hookEntry(process.argv.slice(2));
