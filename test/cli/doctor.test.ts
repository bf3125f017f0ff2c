/**
 * `dsh-mode doctor`: it runs the real sandbox probe. With the machine's PATH (bubblewrap installed, as `.ci/run`
 * ensures) it reports the sandbox available and exits 0; with a PATH that has no `bwrap` it says so, how to install
 * it, and exits 1. In process through `main`, and once as the binary.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { dshMode } from './run.js';

const cwd = tmpdir();
const noBwrap = () => mkdtempSync(join(tmpdir(), 'dsh-doctor-path-'));

describe('doctor', () => {
  it('reports a working sandbox and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['doctor'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^sandbox: available \(bubblewrap; processes bounded by (rlimits|rlimits and a pids cgroup)\)\n/,
    );
  });

  it('reports it as JSON', async () => {
    const { code, stdout } = await runCli(['doctor', '--format', 'json'], { cwd });
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toEqual({
      sandbox: {
        available: true,
        kind: 'bwrap',
        limits: process.getuid?.() === 0 ? 'rlimit+cgroup' : 'rlimit',
        howToInstall: '',
      },
    });
  });

  it('says what is missing and how to install it, and exits 1, where bwrap is not on the PATH', async () => {
    const env = { PATH: noBwrap() };
    const text = await runCli(['doctor'], { cwd, env });
    expect(text.code).toBe(1);
    expect(text.stdout).toBe(
      [
        'sandbox: not available: bubblewrap (`bwrap`) is not on the PATH',
        '  modes with `sandbox: read-only`, the built-in plan among them, deny bash until it works',
        'help: Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch).',
        '',
      ].join('\n'),
    );
    const json = await runCli(['doctor', '--format', 'json'], { cwd, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).sandbox).toMatchObject({
      available: false,
      kind: 'bwrap',
      reason: 'bubblewrap (`bwrap`) is not on the PATH',
      howToInstall: expect.stringContaining('apt-get install bubblewrap'),
    });
  });

  it('refuses arguments', async () => {
    const { code, stderr } = await runCli(['doctor', 'extra'], { cwd });
    expect(code).toBe(2);
    expect(stderr).toContain('unexpected argument `extra`');
  });

  it('runs as the binary', () => {
    const { code, stdout } = dshMode(['doctor', '--format', 'json'], cwd);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).sandbox.available).toBe(true);
  });
});
