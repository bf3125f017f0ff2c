// The cold start of the CLI, as a hook or a CI step meets it: each command a fresh `node bin/dsh-mode.mjs …` child
// process, against `node -e 0` spawned in the same blocks, in a rotated order. Runs the built bundle
// (`npm run build` first; `npm run bench` does).
//  - `check plan bash` of a compound command: the built-in plan and `policies/` parsed, validated and compiled,
//    the command analysed and decided;
//  - `lint --no-builtin` of a user's policy, and the same lint with the built-in plan (linted too).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, now, round } from './lib.mjs';

const BENCH = 'cold';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Wall nanoseconds of one spawn of node with `args`, from the repository root; a failing run is an error. */
function spawnNs(args) {
  const start = now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return now() - start;
}

const CLI = 'bin/dsh-mode.mjs';
const FIGURES = [
  {
    metric: 'cold-check-vs-node',
    args: [CLI, 'check', 'plan', 'bash', '--args', '{"command":"git status; rm -rf /"}'],
    goal: { ratio: 1.5 },
  },
  {
    metric: 'cold-lint-policy-vs-node',
    args: [CLI, 'lint', '--no-builtin', 'policies/examples/review.yaml'],
    goal: { ratio: 2 },
  },
  { metric: 'cold-lint-with-builtin-vs-node', args: [CLI, 'lint', 'policies/examples/review.yaml'] },
];

export default async function run({ quick }) {
  const runs = [['-e', '0'], ...FIGURES.map((f) => f.args)];
  for (const args of runs) spawnNs(args);
  const ns = runs.map(() => []);
  for (let i = 0; i < (quick ? 1 : 21); i++) {
    for (let k = 0; k < runs.length; k++) {
      const j = (i + k) % runs.length;
      ns[j].push(spawnNs(runs[j]));
    }
  }
  const [nodeNs] = ns;
  const ms = (v) => round(v * 1e-6);
  return FIGURES.map((figure, f) => {
    const values = ns[f + 1];
    const ratios = values.map((v, i) => v / nodeNs[i]);
    return {
      bench: BENCH,
      metric: figure.metric,
      value: ms(median(values)),
      unit: 'ms',
      baseline: ms(median(nodeNs)),
      ratio: round(median(ratios)),
      spread: [round(Math.min(...ratios)), round(Math.max(...ratios))],
      note: 'baseline: node -e 0, in the same blocks',
      ...(figure.goal ? { goal: figure.goal } : {}),
    };
  });
}
