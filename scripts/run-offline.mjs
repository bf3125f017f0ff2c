#!/usr/bin/env node
// `node scripts/run-offline.mjs COMMAND [ARG...]`: runs COMMAND in a network namespace of its own, where only
// loopback exists (Linux `unshare --net --map-root-user`, then `ip link set lo up`), so nothing it starts can
// reach any address but 127.0.0.1 — not even a request that ignores the proxy settings the agent tests give.
//
// Where the namespace cannot be made (no unshare or ip, user namespaces disabled), it says so on stderr and runs
// COMMAND as it is: the tests still route every agent's traffic through the fake model server as a proxy, which
// refuses and records any request for another host. DSH_AGENTS_NETNS=0 skips the namespace on purpose.
import { spawnSync } from 'node:child_process';

const argv = process.argv.slice(2);
if (argv.length === 0) {
  process.stderr.write('usage: node scripts/run-offline.mjs COMMAND [ARG...]\n');
  process.exit(2);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.error) {
    process.stderr.write(`run-offline: ${cmd}: ${r.error.message}\n`);
    return 127;
  }
  return r.status ?? 1;
}

const wanted = process.env.DSH_AGENTS_NETNS !== '0' && process.platform === 'linux';
const probe = wanted
  ? spawnSync('unshare', ['--net', '--map-root-user', '--', 'sh', '-c', 'ip link set lo up'], {
      stdio: 'ignore',
    })
  : undefined;
if (probe && probe.status === 0) {
  // "$0" is the first word of COMMAND; "$@" the rest: no shell quoting of the caller's arguments.
  const script = 'ip link set lo up && exec "$0" "$@"';
  process.exit(run('unshare', ['--net', '--map-root-user', '--', 'sh', '-c', script, ...argv]));
}
if (wanted) {
  process.stderr.write(
    'run-offline: could not make a network namespace (unshare --net --map-root-user); running with the proxy guard only\n',
  );
}
process.exit(run(argv[0], argv.slice(1)));
