// The cold start of the CLI, as a hook or a CI step meets it: each command a fresh `node bin/dsh-mode.mjs …` child
// process, against `node -e 0` spawned in the same blocks, in a rotated order. Runs the built bundle
// (`npm run build` first; `npm run bench` does).
//  - `check plan bash` of a compound command: the built-in plan and `policies/` parsed, validated and compiled,
//    the command analysed and decided;
//  - `lint --no-builtin` of a user's policy, and the same lint with the built-in plan (linted too).
// Every process gets the same small environment (PATH, and HOME and the cache folders of a scratch folder), as
// the hook figures do: a machine's NODE_* settings would move both sides (NODE_EXTRA_CA_CERTS alone adds ~35 ms to
// each node start here) and hide what the command itself costs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, now, round } from './lib.mjs';

const BENCH = 'cold';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Wall nanoseconds of one spawn of node with `args`, from the repository root; a failing run is an error. */
function spawnNs(args, env) {
  const start = now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  const scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-cold-'));
  const env = {
    PATH: process.env.PATH,
    HOME: join(scratch, 'home'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
    XDG_CONFIG_HOME: join(scratch, 'config'),
  };
  const runs = [['-e', '0'], ...FIGURES.map((f) => f.args)];
  const ns = runs.map(() => []);
  try {
    for (const args of runs) spawnNs(args, env);
    for (let i = 0; i < (quick ? 1 : 21); i++) {
      for (let k = 0; k < runs.length; k++) {
        const j = (i + k) % runs.length;
        ns[j].push(spawnNs(runs[j], env));
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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
