// The OS sandbox's cost per call (issue 27): a sandboxed `bash -c true` through `runSandboxed` (the whole call:
// its mounts, namespaces, the limits its bash sets, and for a root host the pids cgroup it makes and removes)
// against a bare `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-net --unshare-pid
// --die-with-parent --new-session bash -c true` spawned the same way from Node, interleaved. Goal: ≤ 1.5×.
//
// Two figures, one per kind of host, since a root host takes another way (a pids cgroup, joined by a shell):
//  - as a user: measured here when this process is not root; as root, in a child process run as `nobody`
//    (`setpriv`), on a copy of the sandbox module (which imports nothing outside its folder) and of this file,
//    placed where `nobody` can read them;
//  - as root: measured here when this process is root.
// Imports dist/: `npm run build` first (`npm run bench` does). Needs bubblewrap (`apt-get install bubblewrap`).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { interleave, ratioResult } from './lib.mjs';

const BENCH = 'sandbox';
const here = dirname(fileURLToPath(import.meta.url));
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

/** Interleaved blocks of sandboxed and bare calls, in this process: `{sandboxed, bare}` in nanoseconds. */
async function measure(moduleUrl, quick) {
  const { runSandboxed } = await import(moduleUrl);
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-sandbox-'));
  try {
    const sandboxed = async () => {
      const outcome = await runSandboxed({ workspace, command: { script: 'true' }, timeoutMs: 30_000 });
      if (outcome.kind !== 'ran') throw new Error(`bench sandbox refused: ${outcome.reason}`);
      if (outcome.exitCode !== 0)
        throw new Error(`bench sandbox: exit ${outcome.exitCode}: ${outcome.output}`);
    };
    const repeat = (call) => async (n) => {
      for (let i = 0; i < n; i++) await call();
    };
    // A call is a few milliseconds of process start-up: blocks of 10 calls, many of them.
    return await interleave(
      [
        { name: 'sandboxed', run: repeat(sandboxed) },
        { name: 'bare', run: repeat(bare) },
      ],
      { blocks: quick ? 3 : 21, ops: quick ? 2 : 10 },
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The user host's times, as root: this file, lib.mjs and the sandbox module copied for `nobody`, run by it. */
function measureAsUser(quick) {
  const copy = mkdtempSync(join(tmpdir(), 'dsh-bench-sandbox-user-'));
  try {
    chmodSync(copy, 0o755);
    copyFileSync(fileURLToPath(import.meta.url), join(copy, 'sandbox.bench.mjs'));
    copyFileSync(join(here, 'lib.mjs'), join(copy, 'lib.mjs'));
    cpSync(join(here, '..', 'dist', 'host', 'sandbox'), join(copy, 'sandbox'), { recursive: true });
    execFileSync('chmod', ['-R', 'a+rX', copy]);
    const out = execFileSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        join(copy, 'sandbox.bench.mjs'),
        '--measure',
        pathToFileURL(join(copy, 'sandbox', 'index.js')).href,
        ...(quick ? ['--quick'] : []),
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: copy }, maxBuffer: 1 << 20 },
    );
    return JSON.parse(out);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function figure(metric, times) {
  return ratioResult(BENCH, metric, times.sandboxed, times.bare, {
    unit: 'ms',
    scale: 1e-6,
    goal: { ratio: 1.5 },
  });
}

export default async function run({ quick }) {
  const own = await measure(new URL('../dist/host/sandbox/index.js', import.meta.url).href, quick);
  if (process.getuid?.() !== 0) return [figure('sandbox-bash-true-vs-bare-bwrap', own)];
  return [
    figure('sandbox-bash-true-vs-bare-bwrap', measureAsUser(quick)),
    figure('sandbox-root-bash-true-vs-bare-bwrap', own),
  ];
}

// The child run as `nobody`: `node sandbox.bench.mjs --measure MODULE_URL [--quick]` prints the times as JSON.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--measure') {
  const times = await measure(process.argv[3], process.argv.includes('--quick'));
  process.stdout.write(JSON.stringify(times));
}
