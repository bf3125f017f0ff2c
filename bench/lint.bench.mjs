// Lint of a realistic repository: 10 modes × 5 documents × 50 rules (exact names, prefix globs, brace selectors,
// effects, a default, inline tests, and a `bash` rule of command patterns), against parse + validate of the same
// files, timed in the same blocks. (The CLI's cold start is cold.bench.mjs's.)
// Imports dist/: `npm run build` first (`npm run bench` does).
import { loadPolicyText } from '../dist/compile/language/load.js';
import { lintPolicies } from '../dist/compile/lint/lint.js';
import { consume, median, now, round } from './lib.mjs';

const BENCH = 'lint';
const DECISIONS = ['allow', 'ask', 'deny'];

/**
 * One document of `rules` rules: exact names, prefix globs, brace selectors, effects, a default and inline tests;
 * with `commands`, also a `bash` rule with command patterns and a test that runs a command.
 */
export function documentText(d, mode, rules = 100, commands = false) {
  const lines = [`mode: ${mode}`, 'tools:'];
  if (commands) {
    lines.push('  bash:', '    decision: ask', '    commands:');
    for (const [pattern, decision] of [
      ['git status', 'allow'],
      ['git log **', 'allow'],
      [`npm run d${d} **`, 'allow'],
      ['git push **', 'deny'],
      ['rm **', 'deny'],
    ])
      lines.push(`      "${pattern}": ${decision}`);
  }
  for (let r = commands ? 1 : 0; r < rules; r++) {
    const sel =
      r % 4 === 0 ? `"mcp__d${d}r${r}__*"` : r % 4 === 1 ? `"{a${r},b${r}}_d${d}"` : `tool_${d}_${r}`;
    lines.push(`  ${sel}: ${DECISIONS[(d + r) % 3]}`);
  }
  lines.push('effects:', '  readOnly: allow', 'default: deny', 'tests:');
  for (let t = 0; t < 5; t++)
    lines.push(`  - { tool: tool_${d}_${t * 4 + 2}, expect: ${DECISIONS[(d + t * 4 + 2) % 3]} }`);
  if (commands)
    lines.push('  - { tool: bash, args: { command: "git status && rm -rf dist" }, expect: deny }');
  return lines.join('\n');
}

/** One block of the realistic figure: parse + validate fresh documents (timed), then lint them (timed). */
function realisticBlock(texts) {
  let start = now();
  const docs = texts.flatMap((t, i) => loadPolicyText(t, `doc${i}.yaml`).documents);
  const load = now() - start;
  if (docs.length !== texts.length) throw new Error('bench documents did not load');
  start = now();
  consume(lintPolicies({ documents: docs, diagnostics: [] }).length);
  return { load, lint: now() - start };
}

export default async function run({ quick }) {
  const out = [];
  const ms = (v) => round(v * 1e-6);

  const realistic = Array.from({ length: 50 }, (_, d) => documentText(d, `m${d % 10}`, 50, true));
  for (let w = 0; w < 3; w++) realisticBlock(realistic);
  const realLoad = [];
  const realLint = [];
  for (let b = 0; b < (quick ? 2 : 30); b++) {
    const r = realisticBlock(realistic);
    realLoad.push(r.load);
    realLint.push(r.lint);
  }
  const realRatios = realLint.map((v, i) => v / realLoad[i]);
  out.push({
    bench: BENCH,
    metric: 'lint-10x5x50-vs-load',
    value: ms(median(realLint)),
    unit: 'ms',
    baseline: ms(median(realLoad)),
    ratio: round(median(realRatios)),
    spread: [round(Math.min(...realRatios)), round(Math.max(...realRatios))],
    note: 'baseline: parse + validate of the same 50 files, in the same blocks',
    goal: { ratio: 2 },
  });

  return out;
}
