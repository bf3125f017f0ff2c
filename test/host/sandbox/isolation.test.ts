/**
 * The sandbox's network and environment, attacked with real processes: a loopback server the test starts on
 * the host is reachable from the host and not from the sandbox (its own network namespace), and a secret the
 * test plants in the host's environment does not reach the command.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayAddVariable, runSandboxed } from '../../../src/host/sandbox/index.js';
import { exportCommand } from '../../../src/host/sandbox/environment.js';
import { seccompFilter } from '../../../src/host/sandbox/seccomp.js';
import { world, type World } from './helpers.js';

let w: World;
let server: Server;
let port: number;
let connections = 0;
beforeAll(async () => {
  w = world('iso-');
  server = createServer((socket) => {
    connections++;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  w.remove();
  await new Promise((resolve) => server.close(resolve));
});

describe('network', () => {
  const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;

  it('the host reaches its own loopback server (the attack works outside)', async () => {
    const before = connections;
    // Asynchronously: the server answers from this process's event loop.
    const { stdout } = await promisify(execFile)('bash', ['-c', connect()], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(stdout).toBe('hello from the host\n');
    expect(connections).toBe(before + 1);
  });

  it('the sandbox does not: its loopback is its own, and it has no other interface', async () => {
    const before = connections;
    const r = await w.run({
      command: {
        script: `${connect()}; echo "rc=$?"; ls /sys/class/net; cat /proc/net/dev | tail -n +3 | cut -d: -f1`,
      },
      timeoutMs: 20_000,
    });
    expect(r.output).not.toContain('hello from the host');
    expect(r.output).toContain('Connection refused');
    expect(r.output).toContain('rc=1');
    expect(r.output.trim().split('\n').at(-1)!.trim()).toBe('lo');
    expect(connections).toBe(before);
  });
});

describe('Unix sockets', () => {
  // A service's socket the hidden folders do not cover: here, one in the workspace, served by this process.
  const connect = (path: string) =>
    `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => "${path}") or die "connect: $!\\n"; print <$s>'`;
  let path: string;
  let unixServer: Server;
  beforeAll(async () => {
    path = join(w.workspace, 'service.sock');
    unixServer = createServer((socket) => socket.end('hello from the unix socket\n'));
    await new Promise<void>((resolve) => unixServer.listen(path, resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => unixServer.close(resolve));
  });

  it('the host reaches the socket (the attack works outside)', async () => {
    const { stdout } = await promisify(execFile)('bash', ['-c', connect(path)], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(stdout).toBe('hello from the unix socket\n');
  });

  it('the filter is eight-byte instructions for x86-64 and arm64, and absent elsewhere', () => {
    expect(seccompFilter('x64')).toHaveLength(13 * 8);
    expect(seccompFilter('arm64')).toHaveLength(13 * 8);
    expect(seccompFilter('ia32')).toBeUndefined();
  });

  it('the sandbox cannot open a Unix socket at all (seccomp), though the file is visible', async () => {
    const r = await w.run({
      command: { script: `test -S '${path}' && echo visible; ${connect(path)}` },
      timeoutMs: 20_000,
    });
    expect(r.output).toContain('visible');
    expect(r.output).not.toContain('hello from the unix socket');
    expect(r.output).toContain('connect: Operation not permitted');
  });
});

describe('environment', () => {
  it('carries none of the host environment but the allowlist', async () => {
    const planted = `planted-${Math.random().toString(36).slice(2)}`;
    const r = await w.run({
      command: { script: 'env | sort' },
      timeoutMs: 20_000,
      hostEnv: {
        OPENAI_API_KEY: planted,
        GITHUB_TOKEN: planted,
        AWS_SECRET_ACCESS_KEY: planted,
        SSH_AUTH_SOCK: `/tmp/${planted}`,
        GIT_DIR: `/elsewhere/${planted}`,
        BASH_ENV: `/tmp/${planted}`,
        LANG: 'C.UTF-8',
        PATH: `/usr/bin:/bin:relative/${planted}:`,
      },
    });
    expect(r.output).not.toContain(planted);
    const names = r.output
      .trim()
      .split('\n')
      .map((l) => l.split('=')[0]);
    // bash adds PWD, SHLVL and _ itself.
    expect(names.filter((n) => !['PWD', 'SHLVL', '_'].includes(n!)).sort()).toEqual(
      expect.arrayContaining(['HOME', 'LANG', 'PATH', 'TMPDIR']),
    );
    for (const n of names)
      expect(['HOME', 'LANG', 'PATH', 'TMPDIR', 'TERM', 'USER', 'LOGNAME', 'PWD', 'SHLVL', '_']).toContain(n);
    expect(r.output).toContain('PATH=/usr/bin:/bin\n');
  });

  it("refuses a caller's variable that looks like a credential or runs code first", async () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GH_TOKEN',
      'PGPASSWORD',
      'NPM_CONFIG__AUTH',
      'BASH_ENV',
      'ENV',
      'BASH_FUNC_ls%%',
      'A=B',
    ])
      expect(mayAddVariable(name), name).toBe(false);
    expect(mayAddVariable('GIT_OPTIONAL_LOCKS')).toBe(true);
    expect(() => exportCommand({ MY_SECRET: 'x' })).toThrow(/MY_SECRET/);
    await expect(
      runSandboxed({
        workspace: w.workspace,
        command: { argv: ['true'] },
        timeoutMs: 1_000,
        env: { DEPLOY_TOKEN: 'x' },
      }),
    ).rejects.toThrow(/DEPLOY_TOKEN/);
  });

  it("sets the caller's variables after the limits, on the script's first line, values exact", async () => {
    const value = "a'b\nc\\d\t$(false)`x`";
    const r = await w.run({
      command: { script: 'printf "%s|" "$GIT_X" "$LINENO"' },
      timeoutMs: 20_000,
      env: { GIT_X: value },
    });
    expect(r.output).toBe(`${value}|1|`);
  });

  it("passes the caller's own variables", async () => {
    const r = await w.run({
      command: { argv: ['printenv', 'GIT_OPTIONAL_LOCKS'] },
      timeoutMs: 20_000,
      env: { GIT_OPTIONAL_LOCKS: '0' },
    });
    expect(r.output).toBe('0\n');
    expect(r.exitCode).toBe(0);
  });
});
