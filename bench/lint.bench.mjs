// Lint at scale: compile + lint of 1,000 parsed documents × 100 rules (10 modes of 100 documents: exact names,
// prefix globs, brace selectors, effects, a default and inline tests), in seconds with parsing excluded; parse +
// validate of the same documents is timed in the same blocks and reported beside it as the baseline. (The CLI's
// cold start is cold.bench.mjs's.)
// Imports dist/: `npm run build` first (`npm run bench` does).
import { compilePolicies } from '../dist/compile/compile.js';
import { loadPolicyText } from '../dist/compile/load.js';
import { lintPolicies } from '../dist/compile/lint.js';
import { consume, median, now, round } from './lib.mjs';

const BENCH = 'lint';
const DECISIONS = ['allow', 'ask', 'deny'];

/** One document of 100 rules: exact names, prefix globs, brace selectors, effects, a default and inline tests. */
export function documentText(d, mode) {
  const lines = [`mode: ${mode}`, 'tools:'];
  for (let r = 0; r < 100; r++) {
    const sel =
      r % 4 === 0 ? `"mcp__d${d}r${r}__*"` : r % 4 === 1 ? `"{a${r},b${r}}_d${d}"` : `tool_${d}_${r}`;
    lines.push(`  ${sel}: ${DECISIONS[(d + r) % 3]}`);
  }
  lines.push('effects:', '  readOnly: allow', 'default: deny', 'tests:');
  for (let t = 0; t < 5; t++)
    lines.push(`  - { tool: tool_${d}_${t * 4 + 2}, expect: ${DECISIONS[(d + t * 4 + 2) % 3]} }`);
  return lines.join('\n');
}

/** One block: parse + validate fresh documents (timed), then compile + lint them (timed). */
function lintBlock(texts) {
  let start = now();
  const docs = texts.flatMap((t, i) => loadPolicyText(t, `doc${i}.yaml`).documents);
  const load = now() - start;
  if (docs.length !== texts.length) throw new Error('bench documents did not load');
  start = now();
  consume(compilePolicies(docs).modes.size);
  consume(lintPolicies({ documents: docs, diagnostics: [] }).length);
  return { load, lint: now() - start };
}

export default async function run({ quick }) {
  const out = [];
  const count = quick ? 20 : 1000;
  const texts = Array.from({ length: count }, (_, d) => documentText(d, `m${d % 10}`));
  // Warm-up: the parser's, compiler's and rules' own code is compiled before the first timed block.
  lintBlock(texts.slice(0, Math.min(100, count)));
  const load = [];
  const lint = [];
  for (let b = 0; b < (quick ? 2 : 5); b++) {
    const r = lintBlock(texts);
    load.push(r.load);
    lint.push(r.lint);
  }
  const s = (ns) => round(ns * 1e-9);
  const lintRatios = lint.map((v, i) => v / load[i]);
  out.push({
    bench: BENCH,
    metric: 'compile-lint-1000x100',
    value: s(median(lint)),
    unit: 's',
    baseline: s(median(load)),
    ratio: round(median(lintRatios)),
    spread: [round(Math.min(...lintRatios)), round(Math.max(...lintRatios))],
    note: `baseline: parse + validate of the same ${count} documents`,
    goal: { value: 0.5 },
  });
  return out;
}
