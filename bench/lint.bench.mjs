// Lint time for 1,000 documents × 100 rules, against loading (parse + validate) the same documents in the same run
// (printed as a ratio). Two shapes: 1,000 modes of one document each (with the time of each rule, so a slow rule
// shows), and 100 modes of 10 documents each (composition: inline tests and no-op probes see prefixes).
// Imports dist/: run `npm run build` first (`npm run bench` does).
import { loadPolicyText } from '../dist/compile/load.js';
import { lintPolicies } from '../dist/compile/lint.js';
import { rules } from '../dist/compile/rules/index.js';
import { report, timeOnce } from './lib.mjs';

const DECISIONS = ['allow', 'ask', 'deny'];

/** One document of 100 rules: exact names, prefix globs, brace selectors, effects, a default and inline tests. */
function documentText(d, mode) {
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

async function measure(label, modeOf, perRule) {
  let docs = [];
  const loadMs = await timeOnce(() => {
    docs = Array.from(
      { length: 1000 },
      (_, d) => loadPolicyText(documentText(d, modeOf(d)), `doc${d}.yaml`).documents,
    ).flat();
  });
  if (docs.length !== 1000) throw new Error('bench documents did not load');
  const input = { documents: docs, diagnostics: [] };
  let findings = 0;
  const lintMs = await timeOnce(() => {
    findings = lintPolicies(input).length;
  });
  console.log(`  1,000 documents × 100 rules, ${label} (${findings} findings):`);
  const baseline = { text: `${loadMs.toFixed(0)} ms`, valueOf: () => loadMs, label: 'parse + validate' };
  report('parse + validate (baseline)', baseline);
  report('lint, all rules', { text: `${lintMs.toFixed(0)} ms`, valueOf: () => lintMs }, { baseline });
  if (!perRule) return;
  for (const rule of Object.values(rules)) {
    const ms = await timeOnce(() => lintPolicies(input, { rules: [rule] }));
    report(`  ${rule.id}`, { text: `${ms.toFixed(0)} ms`, valueOf: () => ms }, { baseline });
  }
}

export default async function run() {
  await measure('one document per mode', (d) => `m${d}`, true);
  await measure('100 modes of 10 documents', (d) => `m${d % 100}`, false);
}
