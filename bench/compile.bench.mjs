// The compiler's hot and cold paths, each against a baseline measured in the same run (ratios are the result):
//  - memoised decide() vs a bare Map.get over the same names (the practical limit), and vs a naive evaluator
//    that scans the rules with minimatch on every call;
//  - the cold (first-seen name) decision with 1,000 glob rules;
//  - the visibility filter over 30 tools (target < 5 µs);
//  - parse, parse + validate, compile and lint of 1,000 documents of 100 rules each (10 modes of 100 documents),
//    per document, against parse alone.
// Imports dist/: run `npm run build` first (`npm run bench` does).
import { Minimatch } from 'minimatch';
import { compilePolicies, lintPolicies, loadPolicyText, loadPolicySources } from '../dist/compile/index.js';
import { parsePolicyText } from '../dist/compile/parse.js';
import { formatNs, report, timeOnce, timePerCall } from './lib.mjs';

const RANK = { allow: 0, ask: 1, deny: 2 };

/** A 54-rule workload in the spirit of Gemini CLI's default policies: exact names, MCP globs, effects. */
function workloadText() {
  const lines = ['mode: work', 'tools:'];
  const exact = [
    'read',
    'list',
    'grep',
    'glob',
    'write',
    'edit',
    'bash',
    'todo_write',
    'web_search',
    'web_fetch',
  ];
  exact.forEach((name, i) => lines.push(`  ${name}: ${['allow', 'ask', 'deny'][i % 3]}`));
  for (let i = 0; i < 40; i++) lines.push(`  "mcp__server${i}__*": ${['allow', 'ask', 'deny'][i % 3]}`);
  lines.push(
    '  "mcp__*__read_*": allow',
    '  "mcp__*__write_*": ask',
    '  "*_danger": deny',
    '  "{x,y}_tool": ask',
  );
  lines.push('effects:', '  readOnly: allow', 'default: deny');
  return lines.join('\n');
}

function names(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const k = i % 5;
    if (k === 0) out.push(['read', 'write', 'bash', 'web_fetch', 'edit'][i % 5 === 0 ? (i / 5) % 5 : 0]);
    else if (k === 1) out.push(`mcp__server${i % 40}__op${i}`);
    else if (k === 2) out.push(`mcp__other${i}__read_thing`);
    else if (k === 3) out.push(`tool_${i}_danger`);
    else out.push(`unknown_tool_${i}`);
  }
  return out;
}

/** The naive evaluator: every call scans every rule, matching globs with (prebuilt) minimatch objects. */
function naiveEvaluator(doc) {
  const rules = Object.entries(doc.tools ?? {}).map(([selector, value]) => {
    const decision = typeof value === 'string' ? value : value.decision;
    const literal = selector.replace(/[*?[\]{}]/g, '').length;
    const mm = new Minimatch(selector, {
      dot: true,
      noglobstar: true,
      noext: true,
      nonegate: true,
      nocomment: true,
    });
    return { selector, decision, literal, mm, glob: mm.hasMagic() || /[{]/.test(selector) };
  });
  return (name) => {
    let exact;
    let best;
    for (const r of rules) {
      if (!r.glob) {
        if (r.selector === name && (!exact || RANK[r.decision] > RANK[exact.decision])) exact = r;
        continue;
      }
      if (!r.mm.match(name)) continue;
      if (
        !best ||
        r.literal > best.literal ||
        (r.literal === best.literal && RANK[r.decision] > RANK[best.decision])
      ) {
        best = r;
      }
    }
    return (exact ?? best)?.decision ?? doc.default;
  };
}

export default async function run() {
  const text = workloadText();
  const loaded = loadPolicyText(text, 'work.yaml');
  if (loaded.documents.length !== 1) throw new Error(JSON.stringify(loaded.diagnostics));
  const policy = compilePolicies(loaded.documents).get('work');
  const pool = names(1000);
  const n = pool.length;
  const table = new Map(pool.map((name) => [name, policy.decide(name)]));
  let sink = 0;

  const mapNs = timePerCall((i) => {
    sink ^= table.get(pool[i % n]).decision.length;
  });
  const decideNs = timePerCall((i) => {
    sink ^= policy.decide(pool[i % n]).decision.length;
  });
  const naive = naiveEvaluator(loaded.documents[0].document);
  const naiveNs = timePerCall(
    (i) => {
      sink ^= naive(pool[i % n]).length;
    },
    { ms: 300, batch: 100 },
  );
  console.log('  decisions (54 rules, 1,000 distinct names, warm):');
  report('bare Map.get', { text: `${formatNs(mapNs)}/call` });
  report(
    'memoised decide()',
    { text: `${formatNs(decideNs)}/call`, valueOf: () => decideNs },
    { baseline: { valueOf: () => mapNs, label: 'Map.get' } },
  );
  report(
    'naive scan with minimatch',
    { text: `${formatNs(naiveNs)}/call`, valueOf: () => naiveNs },
    { baseline: { valueOf: () => decideNs, label: 'decide()' } },
  );
  report('decisions per second (memoised)', { text: `${(1e9 / decideNs / 1e6).toFixed(1)} M/s` });

  const hintsNs = timePerCall((i) => {
    sink ^= policy.decide(pool[i % n], { readOnly: true }).decision.length;
  });
  report(
    'memoised decide() with hints',
    { text: `${formatNs(hintsNs)}/call`, valueOf: () => hintsNs },
    { baseline: { valueOf: () => mapNs, label: 'Map.get' } },
  );

  // Cold: 1,000 glob rules, every call a name never seen before.
  const globLines = ['mode: cold', 'tools:'];
  for (let i = 0; i < 1000; i++) globLines.push(`  "mcp__s${i}__*": ${['allow', 'ask', 'deny'][i % 3]}`);
  globLines.push('default: deny');
  const cold = compilePolicies(loadPolicyText(globLines.join('\n'), 'cold.yaml').documents).get('cold');
  let fresh = 0;
  const coldNs = timePerCall(
    () => {
      sink ^= cold.decide(`mcp__s${fresh % 1000}__call_${fresh++}`).decision.length;
    },
    { ms: 400, batch: 20 },
  );
  const coldMissNs = timePerCall(
    () => {
      sink ^= cold.decide(`other_${fresh++}`).decision.length;
    },
    { ms: 400, batch: 20 },
  );
  console.log('  cold decisions (1,000 glob rules, first-seen names):');
  report('cold decide(), matching a glob', { text: `${formatNs(coldNs)}/call` });
  report('cold decide(), matching nothing (full scan)', { text: `${formatNs(coldMissNs)}/call` });

  // Visibility over 30 tools, as the assemble filter computes it per request.
  const plan = compilePolicies((await loadPolicySources([])).documents).get('plan');
  const tools = [
    ...[
      'read',
      'list',
      'grep',
      'write',
      'edit',
      'bash',
      'todo_write',
      'web_search',
      'web_fetch',
      'exit_plan_mode',
    ].map((name) => ({ name })),
    ...Array.from({ length: 20 }, (_, i) => ({
      name: `mcp__gh__tool_${i}`,
      hints: { readOnly: i % 2 === 0 },
    })),
  ];
  const visNs = timePerCall(() => {
    sink ^= tools.filter((t) => plan.visible(t.name, t.hints)).length;
  });
  console.log('  visibility filter:');
  report('30 tools through visible() (target < 5 µs)', { text: formatNs(visNs) });

  // 1,000 documents of 100 rules each.
  const texts = [];
  for (let d = 0; d < 1000; d++) {
    const lines = [`mode: m${d % 10}`, 'tools:'];
    for (let r = 0; r < 100; r++) {
      const sel =
        r % 4 === 0 ? `"mcp__d${d}r${r}__*"` : r % 4 === 1 ? `"{a${r},b${r}}_d${d}"` : `tool_${d}_${r}`;
      lines.push(`  ${sel}: ${['allow', 'ask', 'deny'][(d + r) % 3]}`);
    }
    lines.push('default: deny');
    texts.push(lines.join('\n'));
  }
  // Parse alone is the same-run baseline: compile and lint are reported per document against it. A warm-up
  // first, so the baseline is not charged for compiling the parser's own code.
  for (let i = 0; i < 50; i++) loadPolicyText(texts[i], 'warm-up.yaml');
  let parsed = 0;
  const parseMs = await timeOnce(() => {
    for (let i = 0; i < texts.length; i++) parsed += parsePolicyText(texts[i], `doc${i}.yaml`).data ? 1 : 0;
  });
  if (parsed !== texts.length) throw new Error('bench documents did not parse');
  let docs = [];
  const loadMs = await timeOnce(() => {
    docs = texts.flatMap((t, i) => loadPolicyText(t, `doc${i}.yaml`).documents);
  });
  if (docs.length !== 1000) throw new Error('bench documents did not load');
  let set;
  const compileMs = await timeOnce(() => {
    set = compilePolicies(docs);
  });
  sink ^= set.modes.size;
  let lintMs;
  try {
    lintMs = await timeOnce(() => {
      sink ^= lintPolicies({ documents: docs, diagnostics: [] }).length;
    });
  } catch (error) {
    report('lint', { text: `failed: ${error.message}` });
  }
  const perDoc = (ms) => ({
    text: `${((ms * 1000) / docs.length).toFixed(0)} µs/doc`,
    valueOf: () => ms,
    label: 'parse',
  });
  const parse = perDoc(parseMs);
  console.log('  1,000 documents × 100 rules (10 modes of 100 documents), per document:');
  report('parse (baseline)', parse);
  report('parse + validate', perDoc(loadMs), { baseline: parse });
  report('compile', perDoc(compileMs), { baseline: parse });
  if (lintMs !== undefined) {
    report('lint (all 1,000 documents)', perDoc(lintMs), { baseline: parse });
    report('compile + lint', perDoc(compileMs + lintMs), { baseline: parse });
  }
  if (sink === 0.5) console.log(sink);
}
