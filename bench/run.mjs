// `npm run bench`: runs bench/*.bench.mjs (or those whose name contains an argument) against the built dist/.
//   --json      one JSON object per line: {bench, metric, value, unit, baseline, ratio, spread: [min, max]}
//               (plus `goal` where the issue sets one, and `note`)
//   --markdown  the README's benchmark table, naming the machine and the date
//   --quick     a few short blocks each: checks that every figure is produced, not how fast (the bench test)
//   --from FILE with --markdown: render the table from the JSON lines of an earlier `--json` run instead of running
//   --readme    with --markdown: write the table into README.md between its bench-table markers, not to stdout
// Every figure is a median over interleaved blocks against a baseline measured in the same blocks; `ratio` is
// the median of the per-block ratios (or per run of blocks, where a figure says so) and `spread` their min and max
// (for figures without a baseline, the values').
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { round } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const json = flag('--json');
const markdown = flag('--markdown');
const quick = flag('--quick');
const readme = flag('--readme');
const fromAt = args.indexOf('--from');
const from = fromAt === -1 ? undefined : args[fromAt + 1];
const only = args.filter((a, i) => !a.startsWith('--') && (fromAt === -1 || i !== fromAt + 1));

/** What each figure measures, for people (the table and the text output). */
const LABELS = {
  'cold-check-vs-node': [
    'cold `dsh-mode check plan bash --args \'{"command":"git status; rm -rf /"}\'`',
    '`node -e 0`',
  ],
  'cold-lint-policy-vs-node': [
    'cold `dsh-mode lint --no-builtin policies/examples/review.yaml`',
    '`node -e 0`',
  ],
  'cold-lint-with-builtin-vs-node': [
    'cold `dsh-mode lint policies/examples/review.yaml` (the built-in plan linted too)',
    '`node -e 0`',
  ],
  'plugin-overhead-default': ['one step with the plugin, default mode', 'the same step without the plugin'],
  'plugin-overhead-plan': ['one step with the plugin, plan mode', 'the same step without the plugin'],
  'null-hooks-overhead': [
    "one step with a do-nothing hook on each seam the engine uses, no plugin (the host's dispatch alone)",
    'the same step without them',
  ],
  'fold-read-100k-vs-refold': ['mode fold per read, 100k events, one new event', 'a full refold'],
  'cold-hook-bash-vs-node': [
    'cold `dsh-mode hook claude-code`, a Bash `ls -la src` in plan (kept deployment, journaled)',
    '`node -e 0`',
  ],
  'cold-hook-git-status-vs-node': [
    "cold `dsh-mode hook claude-code`, a Bash `git status` in plan (with git's repository checks)",
    '`node -e 0`',
  ],
  'serve-decision-vs-http-echo': [
    'one `dsh-mode serve` decision over loopback HTTP',
    'a bare loopback HTTP echo of the same body',
  ],
  'decide-command-uncached-vs-parse': [
    'an uncached decision, ~130-character compound command',
    'a bare unbash parse of it',
  ],
  'resume-1m-vs-parse': ['resume of a 1,000,000-event session', 'read + split + `JSON.parse` of its file'],
  'lint-10x5x50-vs-load': [
    'lint of a realistic repository: 10 modes × 5 documents × 50 rules',
    'parse + validate of the same files',
  ],
  'sandbox-bash-true-vs-bare-bwrap': [
    'a sandboxed `bash -c true`, a user host (`runSandboxed`: mounts, namespaces, limits, the whole call)',
    'a bare `bwrap --ro-bind / / … bash -c true`',
  ],
  'sandbox-root-bash-true-vs-bare-bwrap': [
    'a sandboxed `bash -c true`, a root host (the same, and a pids cgroup per call)',
    'a bare `bwrap --ro-bind / / … bash -c true`',
  ],
};

/** Whether a result meets its goal: true, false, or undefined when it has none. */
function holds(result) {
  const goal = result.goal;
  if (!goal) return undefined;
  if (goal.ratio !== undefined) return result.ratio <= goal.ratio;
  if (goal.value !== undefined) return result.value <= goal.value;
  return undefined;
}

const goalText = (r) =>
  r.goal?.ratio !== undefined
    ? `≤ ${r.goal.ratio}×`
    : r.goal?.value !== undefined
      ? `≤ ${r.goal.value} ${r.unit}`
      : '';

function machine() {
  const list = cpus();
  return `${list[0]?.model.trim() ?? 'unknown CPU'}, ${list.length} cores, Node ${process.version.slice(1)}, ${process.platform}-${process.arch}`;
}

function textLine(r) {
  const [what, against] = LABELS[r.metric] ?? [r.metric, 'baseline'];
  const ok = holds(r);
  const verdict =
    ok === undefined ? '' : ok ? `  goal ${goalText(r)}: holds` : `  goal ${goalText(r)}: MISSED`;
  return (
    `  ${r.metric.padEnd(36)} ${String(r.value).padStart(9)} ${r.unit.padEnd(3)} ${String(r.ratio).padStart(7)}× ` +
    `[${r.spread.join(', ')}]  ${what} vs ${against} (${r.baseline} ${r.unit})${verdict}`
  );
}

/** A figure in a readable unit: ns → µs → ms → s once it reaches 10,000 of one. */
function readable(value, unit) {
  const units = ['ns', 'µs', 'ms', 's'];
  let i = units.indexOf(unit);
  let v = value;
  while (i >= 0 && i < units.length - 1 && Math.abs(v) >= 10_000) {
    v /= 1000;
    i++;
  }
  return i < 0 ? `${value} ${unit}` : `${round(v)} ${units[i]}`;
}

function markdownTable(results) {
  const date = new Date().toISOString().slice(0, 10);
  const lines = [
    `Figures from one \`node bench/run.mjs --markdown\` on ${machine()}, ${date}. Each figure is the median over`,
    'interleaved blocks; the ratio is against the baseline measured in the same blocks, with the spread of the',
    'per-block ratios (for the three step pairs, a ratio per run of 10 blocks of 2 ms).',
    '',
    '| what | figure | against the same-run baseline | ratio [spread] | goal |',
    '|---|---|---|---|---|',
  ];
  for (const r of results) {
    const [what, against] = LABELS[r.metric] ?? [r.metric, 'baseline'];
    const ok = holds(r);
    const goal = ok === undefined ? '' : `${goalText(r)} ${ok ? '(holds)' : '(missed)'}`;
    lines.push(
      `| ${what} | ${readable(r.value, r.unit)} | ${against}: ${readable(r.baseline, r.unit)} | ${r.ratio}× [${r.spread.join(', ')}] | ${goal} |`,
    );
  }
  return lines.join('\n');
}

/** Prints the table, or with --readme puts it between README.md's markers. */
function emitTable(results) {
  const table = markdownTable(results);
  if (!readme) return console.log(table);
  const file = join(here, '..', 'README.md');
  const text = readFileSync(file, 'utf8');
  const open = text.indexOf('<!-- bench-table');
  const close = text.indexOf('<!-- /bench-table -->');
  if (open === -1 || close === -1) throw new Error('README.md has no bench-table markers');
  const head = text.indexOf('\n', open) + 1;
  writeFileSync(file, `${text.slice(0, head)}${table}\n${text.slice(close)}`);
  console.log(`README.md: benchmark table written (${results.length} rows)`);
}

if (from !== undefined) {
  // Rendering only: the figures of an earlier run (the machine line names this machine: render where you ran).
  const results = readFileSync(from, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  if (markdown) emitTable(results);
  else console.log(results.map(textLine).join('\n'));
  process.exit(0);
}
const childAt = args.indexOf('--child');
if (childAt !== -1) {
  // One bench file in this process: its results as JSON lines for the parent.
  const { default: run } = await import(pathToFileURL(join(here, args[childAt + 1])).href);
  for (const r of await run({ quick })) console.log(JSON.stringify(r));
  process.exit(0);
}
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (!json && !markdown) console.log(`${machine()}${quick ? ' (--quick: shape only, not timing)' : ''}`);
const results = [];
for (const file of files) {
  const name = file.replace('.bench.mjs', '');
  if (!json && !markdown) console.log(`\n${name}`);
  // Each file in a fresh process: one file's heap (a 100k-event session, a grown fold) must not slow the next's GC.
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--child', file, ...(quick ? ['--quick'] : [])],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 24,
    },
  );
  if (child.status !== 0) throw new Error(`bench ${file} exited ${child.status}`);
  for (const line of child.stdout.split('\n').filter((l) => l.trim())) {
    const r = JSON.parse(line);
    results.push(r);
    if (json) console.log(JSON.stringify(r));
    else if (!markdown) console.log(textLine(r));
  }
}
if (markdown) emitTable(results);
