/**
 * The sandbox's filesystem, attacked with real processes: the workspace, the home and the rest of the host are
 * read-only, the home's files are hidden, `/tmp` is private, size-limited and gone with the call, and GNU sort's
 * spill (issue 27: 373 MB in four seconds from `sort -S 1K /dev/urandom`) leaves nothing behind when the call is
 * killed. Large `sort` and `git log -p` still work.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWith, SCRATCH_HIDDEN, token, world, type World } from './helpers.js';

let w: World;
beforeAll(() => {
  w = world('fs-');
});
afterAll(() => w.remove());

const MiB = 1024 ** 2;

describe('writes', () => {
  it('cannot write the workspace, the home, or the host outside /tmp', async () => {
    const targets = [
      join(w.workspace, 'new'),
      join(w.workspace, 'README.md'),
      join(w.home, 'new'),
      '/usr/new',
      '/etc/new',
      '/var/new',
      '/dev/new',
    ];
    // A host setting is written with its own value: if the write went through, nothing on the host changed.
    const setting =
      'read v < /proc/sys/vm/swappiness; echo "$v" > /proc/sys/vm/swappiness && echo "WROTE setting"';
    const script = [...targets.map((t) => `echo x >> '${t}' && echo "WROTE ${t}"`), setting].join('; ');
    const r = await w.run({ command: { script: `${script}; echo done` }, timeoutMs: 20_000 });
    expect(r.output).toContain('done');
    expect(r.output).not.toContain('WROTE');
    expect(readdirSync(w.workspace)).toEqual(['README.md']);
    expect(readFileSync(join(w.workspace, 'README.md'), 'utf8')).toBe('hello\n');
    expect(readdirSync(w.home)).toEqual(['.secret']);
  });

  it('cannot remount or unmount what hides the home (no capabilities, even for a root host)', async () => {
    const r = await w.run({
      command: {
        script: `mount -o remount,rw / ; umount '${w.home}'; mount -t tmpfs x /mnt; grep CapEff /proc/self/status; cat '${w.home}/.secret'; echo end`,
      },
      timeoutMs: 20_000,
    });
    expect(r.output).toMatch(/CapEff:\s+0+\n/);
    expect(r.output).not.toContain(w.secret);
    expect(r.output).toContain('end');
  });

  it('cannot make a user namespace of its own, where it would have capabilities again', async () => {
    const r = await w.run({
      command: {
        script: `unshare -U true && echo NESTED; unshare -Urm sh -c "umount '${w.home}'; cat '${w.home}/.secret'" && echo NESTED; echo end`,
      },
      timeoutMs: 20_000,
    });
    expect(r.output).not.toContain('NESTED');
    expect(r.output).not.toContain(w.secret);
    expect(r.output).toContain('end');
  });

  it('has a private /tmp: written inside, absent on the host and in the next call', async () => {
    const name = `dsh-private-${token()}`;
    const first = await w.run({
      command: { script: `echo hi > /tmp/${name} && cat /tmp/${name} && echo "TMPDIR=$TMPDIR"` },
      timeoutMs: 20_000,
    });
    expect(first.output).toBe('hi\nTMPDIR=/tmp\n');
    expect(readdirSync('/tmp')).not.toContain(name);
    const second = await w.run({ command: { script: `ls -A /tmp` }, timeoutMs: 20_000 });
    expect(second.output).toBe('');
  });

  it('bounds /tmp by its size: a bigger write fails with ENOSPC', async () => {
    const r = await w.run({
      command: { script: 'head -c 3M /dev/zero > /tmp/big; echo "rc=$?"; stat -c %s /tmp/big' },
      timeoutMs: 20_000,
      limits: { tmpBytes: 1 * MiB },
    });
    expect(r.output).toContain('No space left on device');
    expect(r.output).toContain('rc=1');
    expect(r.output).toContain(`${MiB}\n`);
  });
});

describe('what stays hidden', () => {
  // Reads a file planted outside the workspace: see SCRATCH_HIDDEN.
  it.skipIf(SCRATCH_HIDDEN)("hides the home's files, by path and through HOME", async () => {
    const r = await w.run({
      command: { script: `cat '${w.home}/.secret'; cat "$HOME/.secret"; ls -A "$HOME"; echo "HOME=$HOME"` },
      timeoutMs: 20_000,
    });
    expect(r.output).not.toContain(w.secret);
    expect(r.output).toContain(`HOME=${w.home}\n`);
    expect(r.output.match(/No such file or directory/g)).toHaveLength(2);
  });

  it("a link the workspace ships to the home's secret leads nowhere", async () => {
    const inner = world('link-');
    try {
      symlinkSync(join(inner.home, '.secret'), join(inner.workspace, 'innocent.txt'));
      symlinkSync(inner.home, join(inner.workspace, 'home'));
      // On the host, the link reads the secret: the attack works outside.
      expect(readFileSync(join(inner.workspace, 'innocent.txt'), 'utf8')).toBe(inner.secret);
      const r = await inner.run({
        command: { script: 'cat innocent.txt; cat home/.secret; ls -A home' },
        timeoutMs: 20_000,
      });
      expect(r.output).not.toContain(inner.secret);
      expect(r.output.match(/No such file or directory/g)).toHaveLength(2);
    } finally {
      inner.remove();
    }
  });

  it('shows a workspace inside the home, read-only, and still hides the rest of the home', async () => {
    const inner = world('home-ws-');
    try {
      const workspace = join(inner.home, 'project');
      execFileSync('mkdir', [workspace]);
      writeFileSync(join(workspace, 'a.txt'), 'visible\n');
      const r = await inner.run({
        workspace,
        command: {
          script: `cat a.txt; cat '${inner.home}/.secret'; ls -A '${inner.home}'; touch b.txt || echo read-only`,
        },
        timeoutMs: 20_000,
      });
      expect(r.output).toContain('visible\n');
      expect(r.output).not.toContain(inner.secret);
      expect(r.output).toContain('project\n');
      expect(r.output).toContain('read-only');
      expect(readdirSync(workspace)).toEqual(['a.txt']);
    } finally {
      inner.remove();
    }
  });

  it("hides /run and the host's /tmp and /var/tmp, and sees its own processes only", async () => {
    const r = await w.run({
      command: { script: 'ls -A /run /var/tmp /tmp | wc -l; ls -d /proc/[0-9]* | wc -l' },
      timeoutMs: 20_000,
    });
    // Three listing headers and two blank lines; then bwrap's init, bash, ls and wc at most.
    const [entries, procs] = r.output.trim().split('\n').map(Number);
    expect(entries).toBe(5);
    expect(procs).toBeLessThanOrEqual(5);
  });
});

describe("GNU sort's spill", () => {
  it('goes to the private /tmp, and a killed call leaves no file and no process', async () => {
    const mark = token();
    const hostTmpBefore = new Set(readdirSync('/tmp'));
    const r = await w.run({
      command: {
        script: `sleep 3600.${mark} & sort -S 1K /dev/urandom & sleep 1; echo "spilled $(ls /tmp | grep -c '^sort')"; wait`,
      },
      timeoutMs: 3_000,
    });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(Number(/spilled (\d+)/.exec(r.output)?.[1])).toBeGreaterThan(0);
    expect(processesWith(`3600.${mark}`)).toEqual([]);
    const newInHostTmp = readdirSync('/tmp').filter((f) => !hostTmpBefore.has(f) && f.startsWith('sort'));
    expect(newInHostTmp).toEqual([]);
    expect(readdirSync(w.workspace)).toEqual(['README.md']);
  });

  // Reads a file planted outside the workspace: see SCRATCH_HIDDEN.
  it.skipIf(SCRATCH_HIDDEN)(
    'sorts a large file through /tmp as the host does',
    async () => {
      const big = join(w.base, 'big.txt');
      // 40 MB of short lines: with a 1 MiB buffer sort spills tens of temporary files.
      execFileSync('bash', ['-c', `head -c 30M /dev/urandom | base64 -w 60 > '${big}'`]);
      const host = execFileSync('bash', ['-c', `LC_ALL=C sort -S 1M '${big}' | md5sum`], {
        encoding: 'utf8',
      });
      const r = await w.run({
        command: { script: `LC_ALL=C sort -S 1M '${big}' | md5sum` },
        timeoutMs: 120_000,
      });
      expect(r.exitCode).toBe(0);
      expect(r.output).toBe(host);
    },
    180_000,
  );

  it('runs git log -p over a large history', async () => {
    const repo = join(w.base, 'repo');
    execFileSync('bash', [
      '-c',
      `set -e; git init -q '${repo}'; cd '${repo}'; for i in 1 2 3; do head -c 4M /dev/urandom | base64 > data.txt; git add data.txt; git -c user.name=t -c user.email=t@t commit -qm "c$i"; done`,
    ]);
    const host = execFileSync('bash', ['-c', `cd '${repo}' && git log -p | md5sum`], { encoding: 'utf8' });
    const r = await w.run({
      workspace: repo,
      command: { script: 'git log -p | md5sum; git log -p | wc -c' },
      timeoutMs: 120_000,
    });
    expect(r.exitCode).toBe(0);
    const [sum, bytes] = r.output.split('\n');
    expect(`${sum}\n`).toBe(host);
    expect(Number(bytes)).toBeGreaterThan(20 * MiB);
  }, 180_000);
});
