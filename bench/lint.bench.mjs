// Lint time for 1,000 documents × 100 rules, against loading (parse + validate) the same documents in the same run
// (printed per document and as a ratio). Three shapes: 1,000 modes of one document each (with the time of each
// rule, so a slow rule shows), 100 modes of 10 documents, and 10 modes of 100 documents (composition: inline tests
// and no-op probes see long prefixes, which made lint quadratic before modes were indexed once).
// Then the cold start of `dsh-mode lint policies/plan.yaml` against `node -e ""` (target: within 3x).
// Imports dist/: run `npm run build` first (`npm run bench` does).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadPolicyText } from '../dist/compile/load.js';
import { lintPolicies } from '../dist/compile/lint.js';
import { rules } from '../dist/compile/rules/index.js';
import { report, timeOnce } from './lib.mjs';

const DECISIONS = ['allow', 'ask', 'deny'];
const DOCUMENTS = 1000;

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

const perDocument = (ms) => `${((ms * 1000) / DOCUMENTS).toFixed(0)} µs/doc`;

async function measure(label, modeOf, perRule) {
  let docs = [];
  const loadMs = await timeOnce(() => {
    docs = Array.from(
      { length: DOCUMENTS },
      (_, d) => loadPolicyText(documentText(d, modeOf(d)), `doc${d}.yaml`).documents,
    ).flat();
  });
  if (docs.length !== DOCUMENTS) throw new Error('bench documents did not load');
  const input = { documents: docs, diagnostics: [] };
  let findings = 0;
  const lintMs = await timeOnce(() => {
    findings = lintPolicies(input).length;
  });
  console.log(`  1,000 documents × 100 rules, ${label} (${findings} findings):`);
  const baseline = { text: `${loadMs.toFixed(0)} ms`, valueOf: () => loadMs, label: 'parse + validate' };
  report('parse + validate (baseline)', baseline);
  report('lint, all rules', { text: `${lintMs.toFixed(0)} ms`, valueOf: () => lintMs }, { baseline });
  report('  per document: parse + validate', { text: perDocument(loadMs) });
  report(
    '  per document: lint',
    { text: perDocument(lintMs), valueOf: () => lintMs },
    { baseline: { valueOf: () => loadMs, label: 'parse + validate per doc' } },
  );
  if (!perRule) return;
  for (const rule of Object.values(rules)) {
    const ms = await timeOnce(() => lintPolicies(input, { rules: [rule] }));
    report(`  ${rule.id}`, { text: `${ms.toFixed(0)} ms`, valueOf: () => ms }, { baseline });
  }
}

/** Wall time in ms of one spawn of node with `args`, from the repository root; a failing run is an error. */
function spawnMs(args) {
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function coldStart(runs = 11) {
  const bareArgs = ['-e', ''];
  const lintArgs = ['bin/dsh-mode.mjs', 'lint', 'policies/plan.yaml'];
  // One warm-up each (disk cache), then interleaved, so load on the machine hits both alike.
  spawnMs(bareArgs);
  spawnMs(lintArgs);
  const bare = [];
  const lint = [];
  for (let i = 0; i < runs; i++) {
    bare.push(spawnMs(bareArgs));
    lint.push(spawnMs(lintArgs));
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bareMs = median(bare);
  const lintMs = median(lint);
  console.log(`  cold start (median of ${runs} spawns each):`);
  const baseline = { text: `${bareMs.toFixed(0)} ms`, valueOf: () => bareMs, label: 'node -e ""' };
  report('node -e "" (baseline)', baseline);
  report(
    'dsh-mode lint policies/plan.yaml (target within 3x)',
    { text: `${lintMs.toFixed(0)} ms`, valueOf: () => lintMs },
    { baseline },
  );
}

export default async function run() {
  // A warm-up, so the first shape's baseline is not charged for compiling the parser's own code.
  for (let d = 0; d < 50; d++) loadPolicyText(documentText(d, 'warm'), 'warm-up.yaml');
  await measure('one document per mode', (d) => `m${d}`, true);
  await measure('100 modes of 10 documents', (d) => `m${d % 100}`, false);
  await measure('10 modes of 100 documents', (d) => `m${d % 10}`, false);
  coldStart();
}
