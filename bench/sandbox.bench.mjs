// The OS sandbox's cost per call (issue 27): a sandboxed `bash -c true` through `runSandboxed` (the whole call:
// its mounts, namespaces, `prlimit`, and for a root host the pids cgroup it makes and removes) against a bare
// `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-net --unshare-pid --die-with-parent
// --new-session bash -c true` spawned the same way from Node, interleaved. Goal: ≤ 1.5×.
// Imports dist/: `npm run build` first (`npm run bench` does). Needs bubblewrap (`apt-get install bubblewrap`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSandboxed } from '../dist/host/sandbox/index.js';
import { interleave, ratioResult } from './lib.mjs';

const BENCH = 'sandbox';
const BARE = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  '--unshare-net',
  '--unshare-pid',
  '--die-with-parent',
  '--new-session',
  'bash',
  '-c',
  'true',
];

function bare() {
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', BARE, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`bare bwrap exited ${code}`))));
  });
}

export default async function run({ quick }) {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-sandbox-'));
  try {
    const sandboxed = async () => {
      const outcome = await runSandboxed({
        workspace,
        command: { argv: ['bash', '-c', 'true'] },
        timeoutMs: 30_000,
      });
      if (outcome.kind !== 'ran') throw new Error(`bench sandbox refused: ${outcome.reason}`);
      if (outcome.exitCode !== 0)
        throw new Error(`bench sandbox: exit ${outcome.exitCode}: ${outcome.output}`);
    };
    const times = await interleave(
      [
        {
          name: 'sandboxed',
          async run(n) {
            for (let i = 0; i < n; i++) await sandboxed();
          },
        },
        {
          name: 'bare',
          async run(n) {
            for (let i = 0; i < n; i++) await bare();
          },
        },
      ],
      // A call is a few milliseconds of process start-up: blocks of 10 calls, many of them.
      { blocks: quick ? 3 : 21, ops: quick ? 2 : 10 },
    );
    return [
      ratioResult(BENCH, 'sandbox-bash-true-vs-bare-bwrap', times.sandboxed, times.bare, {
        unit: 'ms',
        scale: 1e-6,
        goal: { ratio: 1.5 },
      }),
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
